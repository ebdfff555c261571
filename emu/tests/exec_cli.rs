//! `gcnemu run` through the binary: argument forms, `:out=`, exit codes and error texts.

use std::path::PathBuf;
use std::process::Command;

fn saxpy() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/hip/saxpy.gfx900.co")
}

fn gcnemu(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_gcnemu"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn floats(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|f| f.to_le_bytes()).collect()
}

#[test]
fn saxpy_with_files_and_out() {
    let dir = std::env::temp_dir().join(format!("gcnemu-exec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let x: Vec<f32> = (0..300).map(|i| i as f32 - 7.5).collect();
    let y: Vec<f32> = (0..300).map(|i| (i % 3) as f32).collect();
    std::fs::write(dir.join("x"), floats(&x)).unwrap();
    std::fs::write(dir.join("y"), floats(&y)).unwrap();
    let (x_arg, y_arg) = (
        format!("@{}", dir.join("x").display()),
        format!(
            "@{}:out={}",
            dir.join("y").display(),
            dir.join("y.out").display()
        ),
    );
    let file = saxpy();
    let (code, stdout, stderr) = gcnemu(&[
        "run",
        file.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        "2",
        "--block",
        "256,1,1",
        "--arg",
        "-1.5",
        "--arg",
        &x_arg,
        "--arg",
        &y_arg,
        "--arg",
        "0x12c",
        "--stats",
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("2 workgroups, 8 waves"), "{stdout}");
    let got = std::fs::read(dir.join("y.out")).unwrap();
    let want: Vec<f32> = (0..300).map(|i| (-1.5f32).mul_add(x[i], y[i])).collect();
    assert_eq!(got, floats(&want));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn wrong_argument_count_lists_arguments() {
    let file = saxpy();
    let (code, _, stderr) = gcnemu(&[
        "run",
        file.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "1.0",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("takes 4 argument(s), 1 given"), "{stderr}");
    assert!(stderr.contains("1: 8 bytes, pointer"), "{stderr}");
}

#[test]
fn number_for_a_pointer_is_a_usage_error() {
    let file = saxpy();
    let (code, _, stderr) = gcnemu(&[
        "run",
        file.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "1.0",
        "--arg",
        "5",
        "--arg",
        "zeros:256",
        "--arg",
        "64",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("this argument is a pointer"), "{stderr}");
}

#[test]
fn out_of_bounds_access_is_a_guest_fault() {
    let file = saxpy();
    // n = 64 but the buffers hold 16 bytes: lane 4 reads past the end.
    let (code, _, stderr) = gcnemu(&[
        "run",
        file.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "1.0",
        "--arg",
        "zeros:16",
        "--arg",
        "zeros:16",
        "--arg",
        "64",
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("kernel `saxpy`, workgroup (0, 0, 0), wave 0"),
        "{stderr}"
    );
    assert!(
        stderr.contains("global_load_dword v2, v[2:3], off"),
        "{stderr}"
    );
    assert!(stderr.contains("lane 4: load of 4 bytes"), "{stderr}");
}

#[test]
fn budget_exhaustion_is_a_guest_error() {
    let file = saxpy();
    let (code, _, stderr) = gcnemu(&[
        "run",
        file.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        "1",
        "--block",
        "64",
        "--arg",
        "1.0",
        "--arg",
        "zeros:256",
        "--arg",
        "zeros:256",
        "--arg",
        "64",
        "--max-instructions",
        "5",
    ]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("instruction budget of 5 wave-instructions exhausted"),
        "{stderr}"
    );
}

#[test]
fn unknown_kernel_and_bad_dims() {
    let file = saxpy();
    let (code, _, stderr) = gcnemu(&[
        "run",
        file.to_str().unwrap(),
        "--kernel",
        "nope",
        "--grid",
        "1",
        "--block",
        "64",
    ]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no kernel `nope`") && stderr.contains("saxpy"),
        "{stderr}"
    );
    let (code, _, _) = gcnemu(&[
        "run",
        file.to_str().unwrap(),
        "--kernel",
        "saxpy",
        "--grid",
        "0",
        "--block",
        "64",
    ]);
    assert_eq!(code, 2);
}
