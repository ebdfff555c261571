//! hiprtc, runtime compilation: the eleven `hiprtc*` functions ROCm 5.2 exports from
//! `libamdhip64.so.5` (`hip_4.2`). The programs and their compilation are in `src/rtc/`.
//!
//! Checks and codes are hipamd 5.2's (`src/hiprtc/hiprtc.cpp`), and where 5.2 would
//! dereference a bad argument the code its header documents: a null or unknown program is
//! `HIPRTC_ERROR_INVALID_PROGRAM`, a null source, option or header `HIPRTC_ERROR_INVALID_INPUT`.
//! As in 5.2, `hiprtcGetCodeSize` before a successful compilation gives 0 and `hiprtcGetCode`
//! copies nothing. The log's size counts its terminating NUL (5.2 leaves the NUL out, so a
//! program that allocates the size it is told and prints the log reads past it).
//! hiprtc's results are not HIP's last error, and its calls do not take the runtime's lock
//! while compiling.

use crate::rtc::program::{self, Program, Refused};
use crate::runtime;
use std::ffi::{c_char, c_int, CStr};
use std::panic::AssertUnwindSafe;

#[allow(non_camel_case_types)]
type hiprtcResult = c_int;
#[allow(non_camel_case_types)]
type hiprtcProgram = *mut std::ffi::c_void;

const SUCCESS: hiprtcResult = 0;
const INVALID_INPUT: hiprtcResult = 3;
const INVALID_PROGRAM: hiprtcResult = 4;
const COMPILATION: hiprtcResult = 6;
const NAME_EXPRESSION_NOT_VALID: hiprtcResult = 10;
const INTERNAL_ERROR: hiprtcResult = 11;

/// The names of `hiprtcResult`'s values, which are also ROCm's error strings.
const NAMES: [&CStr; 12] = [
    c"HIPRTC_SUCCESS",
    c"HIPRTC_ERROR_OUT_OF_MEMORY",
    c"HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
    c"HIPRTC_ERROR_INVALID_INPUT",
    c"HIPRTC_ERROR_INVALID_PROGRAM",
    c"HIPRTC_ERROR_INVALID_OPTION",
    c"HIPRTC_ERROR_COMPILATION",
    c"HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    c"HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    c"HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
    c"HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
    c"HIPRTC_ERROR_INTERNAL_ERROR",
];

/// Runs a hiprtc call; a panic becomes `HIPRTC_ERROR_INTERNAL_ERROR` instead of crossing into
/// the program.
fn rtc(f: impl FnOnce() -> Result<(), hiprtcResult>) -> hiprtcResult {
    match std::panic::catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => SUCCESS,
        Ok(Err(e)) => e,
        Err(_) => INTERNAL_ERROR,
    }
}

/// Runs `f` on the program behind `prog`, holding the programs' table.
fn with_program<R>(
    prog: hiprtcProgram,
    f: impl FnOnce(&mut Program) -> Result<R, hiprtcResult>,
) -> Result<R, hiprtcResult> {
    let mut table = program::table();
    let p = table.get(prog as usize).ok_or(INVALID_PROGRAM)?;
    f(p)
}

/// A C string argument; null is `HIPRTC_ERROR_INVALID_INPUT`.
///
/// # Safety
/// `s` is null or NUL-terminated.
unsafe fn text(s: *const c_char) -> Result<String, hiprtcResult> {
    if s.is_null() {
        return Err(INVALID_INPUT);
    }
    // SAFETY: per the function's contract.
    Ok(unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

/// `count` C strings from `array`.
///
/// # Safety
/// `array` is null or holds `count` pointers, each null or NUL-terminated.
unsafe fn texts(array: *const *const c_char, count: c_int) -> Result<Vec<String>, hiprtcResult> {
    if count < 0 || (count > 0 && array.is_null()) {
        return Err(INVALID_INPUT);
    }
    (0..count as usize)
        // SAFETY: `array` holds `count` pointers.
        .map(|i| unsafe { text(*array.add(i)) })
        .collect()
}

#[no_mangle]
pub extern "C" fn hiprtcGetErrorString(result: hiprtcResult) -> *const c_char {
    // An unknown code has no string (hipamd 5.2 returns null).
    usize::try_from(result)
        .ok()
        .and_then(|i| NAMES.get(i))
        .map_or(std::ptr::null(), |s| s.as_ptr())
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcVersion(major: *mut c_int, minor: *mut c_int) -> hiprtcResult {
    rtc(|| {
        if major.is_null() || minor.is_null() {
            return Err(INVALID_INPUT);
        }
        // ROCm 5.2 answers 9.0.
        // SAFETY: non-null out-pointers.
        unsafe {
            major.write_unaligned(9);
            minor.write_unaligned(0);
        }
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcCreateProgram(
    prog: *mut hiprtcProgram,
    src: *const c_char,
    _name: *const c_char,
    num_headers: c_int,
    headers: *const *const c_char,
    include_names: *const *const c_char,
) -> hiprtcResult {
    rtc(|| {
        if prog.is_null() {
            return Err(INVALID_PROGRAM);
        }
        if num_headers < 0 || (num_headers > 0 && (headers.is_null() || include_names.is_null())) {
            return Err(INVALID_INPUT);
        }
        // SAFETY: C strings and arrays of `num_headers` C strings from the program.
        let (source, texts_, names) = unsafe {
            (
                text(src)?,
                texts(headers, num_headers)?,
                texts(include_names, num_headers)?,
            )
        };
        let p =
            Program::new(source, names.into_iter().zip(texts_).collect()).map_err(|r| match r {
                Refused::EmptySource | Refused::EmptyHeader => INVALID_INPUT,
            })?;
        let h = program::table().insert(p);
        // SAFETY: a non-null out-pointer.
        unsafe { prog.write_unaligned(h as hiprtcProgram) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcDestroyProgram(prog: *mut hiprtcProgram) -> hiprtcResult {
    rtc(|| {
        if prog.is_null() {
            return Err(INVALID_INPUT);
        }
        // SAFETY: a non-null pointer to the program's handle.
        let h = unsafe { prog.read_unaligned() };
        program::table()
            .remove(h as usize)
            .map(drop)
            .ok_or(INVALID_PROGRAM)
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcAddNameExpression(
    prog: hiprtcProgram,
    name_expression: *const c_char,
) -> hiprtcResult {
    rtc(|| {
        // SAFETY: a C string from the program.
        let e = unsafe { text(name_expression) }?;
        with_program(prog, |p| {
            if p.add_expression(&e) {
                Ok(())
            } else {
                Err(INVALID_INPUT)
            }
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcCompileProgram(
    prog: hiprtcProgram,
    num_options: c_int,
    options: *const *const c_char,
) -> hiprtcResult {
    rtc(|| {
        let input = with_program(prog, |p| Ok(p.input()))?;
        // SAFETY: an array of `num_options` C strings from the program.
        let user = unsafe { texts(options, num_options) }?;
        // The device's ISA unless an option names one; a runtime that cannot start has none,
        // and then only an option can say it.
        let device =
            runtime::with(|rt| gcnemu::board::arch_name(rt.settings.target, rt.settings.xnack))
                .unwrap_or_default();
        let (isa, options) = program::options(&user, &device);
        let out = if isa.ends_with("--") {
            program::failed("Error: Please provide architecture for which code is to be generated.")
        } else {
            program::compile(&input, &isa, &options)
        };
        let ok = out.code.is_some();
        // The program may have been destroyed meanwhile; then the result has no one to go to.
        with_program(prog, |p| {
            p.finish(out);
            Ok(())
        })?;
        if ok {
            Ok(())
        } else {
            Err(COMPILATION)
        }
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcGetLoweredName(
    prog: hiprtcProgram,
    name_expression: *const c_char,
    lowered_name: *mut *const c_char,
) -> hiprtcResult {
    rtc(|| {
        if lowered_name.is_null() {
            return Err(INVALID_INPUT);
        }
        // SAFETY: a C string from the program.
        let e = unsafe { text(name_expression) }?;
        with_program(prog, |p| {
            // The string lives in the program until it is destroyed or compiled again.
            let s = p.lowered(&e).ok_or(NAME_EXPRESSION_NOT_VALID)?.as_ptr();
            // SAFETY: a non-null out-pointer.
            unsafe { lowered_name.write_unaligned(s) };
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcGetProgramLogSize(
    prog: hiprtcProgram,
    log_size_ret: *mut usize,
) -> hiprtcResult {
    rtc(|| {
        if log_size_ret.is_null() {
            return Err(INVALID_INPUT);
        }
        let n = with_program(prog, |p| Ok(p.log.len() + 1))?;
        // SAFETY: a non-null out-pointer.
        unsafe { log_size_ret.write_unaligned(n) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcGetProgramLog(
    prog: hiprtcProgram,
    log: *mut c_char,
) -> hiprtcResult {
    rtc(|| {
        if log.is_null() {
            return Err(INVALID_INPUT);
        }
        with_program(prog, |p| {
            // SAFETY: the program's buffer holds the size hiprtcGetProgramLogSize gave.
            unsafe {
                std::ptr::copy_nonoverlapping(p.log.as_ptr(), log as *mut u8, p.log.len());
                log.add(p.log.len()).write(0);
            }
            Ok(())
        })
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcGetCodeSize(
    prog: hiprtcProgram,
    code_size_ret: *mut usize,
) -> hiprtcResult {
    rtc(|| {
        if code_size_ret.is_null() {
            return Err(INVALID_INPUT);
        }
        let n = with_program(prog, |p| Ok(p.code.as_ref().map_or(0, Vec::len)))?;
        // SAFETY: a non-null out-pointer.
        unsafe { code_size_ret.write_unaligned(n) };
        Ok(())
    })
}

#[no_mangle]
pub unsafe extern "C" fn hiprtcGetCode(prog: hiprtcProgram, code: *mut c_char) -> hiprtcResult {
    rtc(|| {
        if code.is_null() {
            return Err(INVALID_INPUT);
        }
        with_program(prog, |p| {
            if let Some(c) = &p.code {
                // SAFETY: the program's buffer holds the size hiprtcGetCodeSize gave.
                unsafe { std::ptr::copy_nonoverlapping(c.as_ptr(), code as *mut u8, c.len()) };
            }
            Ok(())
        })
    })
}

/// hiprtc's precompiled header (`-hip-pch`): none is built in (hipamd builds one only with
/// `__HIP_ENABLE_PCH`, and drops the option either way), so an empty one.
#[no_mangle]
pub unsafe extern "C" fn __hipGetPCH(
    pch: *mut *const std::ffi::c_char,
    size: *mut std::ffi::c_uint,
) {
    if !pch.is_null() {
        // SAFETY: the caller's out-pointers, checked for null.
        unsafe { pch.write(c"".as_ptr()) };
    }
    if !size.is_null() {
        unsafe { size.write(0) };
    }
}
