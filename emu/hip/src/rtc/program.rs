//! hiprtc programs: their source, headers and name expressions, and what compiling them gave
//! (log, code object, lowered names); and the compilation itself, the comgr actions ROCm 5.2's
//! hiprtc runs (source with the headers to bitcode, device libraries added and linked, codegen
//! to a relocatable, linked to an executable code object).
//!
//! Programs live in their own table behind their own lock, not in the HIP runtime: compiling
//! takes seconds and must not stop other threads' HIP calls, and hiprtc's results are not HIP's
//! last error. Handles are numbers from this table, so a destroyed or foreign handle is refused,
//! never dereferenced.

use super::comgr::{self, Action, Comgr, DataSet, Kind};
use super::{builtins, names};
use std::collections::{BTreeMap, HashMap};
use std::ffi::CString;
use std::sync::Mutex;

/// hipamd 5.2's `HIP_VERSION_*` (Debian's `hip_version.h`), passed to the compiler as hipamd does.
const HIP_VERSION: (u32, u32, u32) = (5, 2, 21153);
/// The comgr name of the program's source, as hipamd names it.
const SOURCE_NAME: &str = "CompileSource";

#[derive(Default)]
pub(crate) struct Program {
    source: String,
    headers: Vec<(String, String)>,
    expressions: Vec<String>,
    /// The log of the last compilation.
    pub(crate) log: String,
    /// The code object of the last successful compilation.
    pub(crate) code: Option<Vec<u8>>,
    /// Reduced name expression → its mangled name (NUL-terminated: the program is handed a
    /// pointer that lives as long as the program).
    lowered: HashMap<String, CString>,
}

/// What `Program::new` refuses.
pub(crate) enum Refused {
    EmptySource,
    EmptyHeader,
}

impl Program {
    /// A program of `source` and `(name, text)` headers; empty ones are refused, as hipamd 5.2's
    /// `addSource`/`addHeader` refuse them.
    pub(crate) fn new(source: String, headers: Vec<(String, String)>) -> Result<Self, Refused> {
        if source.is_empty() {
            return Err(Refused::EmptySource);
        }
        if headers.iter().any(|(n, t)| n.is_empty() || t.is_empty()) {
            return Err(Refused::EmptyHeader);
        }
        Ok(Program {
            source,
            headers,
            ..Program::default()
        })
    }

    /// Tracks a name expression for the next compilation (an empty one is refused).
    pub(crate) fn add_expression(&mut self, expression: &str) -> bool {
        if expression.trim().is_empty() {
            return false;
        }
        if !self.expressions.iter().any(|e| e == expression) {
            self.expressions.push(expression.to_string());
        }
        true
    }

    /// The mangled name of an expression added before the last successful compilation.
    pub(crate) fn lowered(&self, expression: &str) -> Option<&CString> {
        self.lowered.get(&names::reduce_expression(expression))
    }

    /// What a compilation needs, taken so the table's lock is not held while it runs.
    pub(crate) fn input(&self) -> Input {
        Input {
            source: self.source.clone(),
            headers: self.headers.clone(),
            expressions: self.expressions.clone(),
        }
    }

    pub(crate) fn finish(&mut self, out: Output) {
        self.log = out.log;
        self.code = out.code;
        self.lowered = out.lowered;
    }
}

pub(crate) struct Input {
    source: String,
    headers: Vec<(String, String)>,
    expressions: Vec<String>,
}

pub(crate) struct Output {
    pub(crate) log: String,
    /// `None` when compilation failed.
    pub(crate) code: Option<Vec<u8>>,
    lowered: HashMap<String, CString>,
}

/// The programs by handle.
pub(crate) struct Table {
    next: usize,
    programs: BTreeMap<usize, Program>,
}

static PROGRAMS: Mutex<Table> = Mutex::new(Table {
    next: 0,
    programs: BTreeMap::new(),
});

impl Table {
    pub(crate) fn insert(&mut self, p: Program) -> usize {
        // Handles are small multiples of 16 above a page: never null, never an address a
        // program could mistake for a live object of ROCm's.
        self.next += 1;
        let h = 0x1000 + self.next * 16;
        self.programs.insert(h, p);
        h
    }
    pub(crate) fn get(&mut self, h: usize) -> Option<&mut Program> {
        self.programs.get_mut(&h)
    }
    pub(crate) fn remove(&mut self, h: usize) -> Option<Program> {
        self.programs.remove(&h)
    }
}

/// The programs' table, also after a thread panicked holding it.
pub(crate) fn table() -> std::sync::MutexGuard<'static, Table> {
    PROGRAMS.lock().unwrap_or_else(|e| e.into_inner())
}

/// The ISA and options of a compilation, from the program's options as hipamd 5.2 reads them:
/// `--gpu-architecture=X` (nvcc's spelling) becomes `--offload-arch=X`, whose value names the
/// ISA instead of `device_isa`; `-hip-pch` and `--save-temps` are dropped.
pub(crate) fn options(user: &[String], device_isa: &str) -> (String, Vec<String>) {
    let (major, minor, patch) = HIP_VERSION;
    let mut out: Vec<String> = vec![
        "-O3".into(),
        // Inlining waits for the device libraries, as hipamd's compile does.
        "-mllvm".into(),
        "-amdgpu-prelink".into(),
        "-mwavefrontsize64".into(),
        format!("--hip-version={major}.{minor}.{patch}"),
        format!("-DHIP_VERSION_MAJOR={major}"),
        format!("-DHIP_VERSION_MINOR={minor}"),
        format!("-DHIP_VERSION_PATCH={patch}"),
        "-D__HIPCC_RTC__".into(),
        "-include".into(),
        builtins::NAME.into(),
        "-std=c++14".into(),
        "-nogpuinc".into(),
    ];
    let mut isa = format!("amdgcn-amd-amdhsa--{device_isa}");
    for o in user {
        if o == "-hip-pch" || o == "--save-temps" {
            continue;
        }
        let o = match o.strip_prefix("--gpu-architecture=") {
            Some(arch) => format!("--offload-arch={arch}"),
            None => o.clone(),
        };
        if let Some(arch) = o.strip_prefix("--offload-arch=") {
            isa = format!("amdgcn-amd-amdhsa--{arch}");
        }
        out.push(o);
    }
    (isa, out)
}

/// Compiles `input` for `isa` with `options` (from [`options`]). Never fails as a call: what
/// went wrong is in the log and the missing code.
pub(crate) fn compile(input: &Input, isa: &str, options: &[String]) -> Output {
    // LLVM inside comgr is not safe to run from two threads at once (hipamd serialises too).
    static COMPILING: Mutex<()> = Mutex::new(());
    let _one = COMPILING.lock().unwrap_or_else(|e| e.into_inner());
    let mut log = String::new();
    let failed = |log: String, why: String| {
        if why.is_empty() {
            return failed(&log);
        }
        let sep = if log.is_empty() || log.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        failed(&format!("{log}{sep}error: {why}\n"))
    };
    let comgr = match comgr::get() {
        Ok(c) => c,
        Err(e) => {
            return failed(
                log,
                format!(
                    "hiprtc compiles through AMD's code-object manager, {} ({e}); \
                     install it: apt-get install {}",
                    comgr::LIBRARY,
                    comgr::PACKAGE
                ),
            )
        }
    };
    let header = match builtins::header() {
        Ok(h) => h,
        Err(e) => {
            return failed(
                log,
                format!(
                    "hiprtc's HIP headers come from {} ({e}); install it: apt-get install {}",
                    builtins::LIBRARY,
                    builtins::PACKAGE
                ),
            )
        }
    };
    match run(comgr, header, input, isa, options, &mut log) {
        Ok((code, lowered)) => Output {
            log,
            code: Some(code),
            lowered,
        },
        Err(why) => failed(log, why),
    }
}

/// A compilation that failed with `log`.
pub(crate) fn failed(log: &str) -> Output {
    Output {
        log: log.to_string(),
        code: None,
        lowered: HashMap::new(),
    }
}

type Compiled = (Vec<u8>, HashMap<String, CString>);

fn run(
    comgr: &Comgr,
    header: &[u8],
    input: &Input,
    isa: &str,
    options: &[String],
    log: &mut String,
) -> Result<Compiled, String> {
    let sources = comgr.data_set()?;
    let source = format!(
        "{}{}",
        input.source,
        names::declarations(&input.expressions)
    );
    sources.add(&comgr.data(Kind::Source, source.as_bytes(), SOURCE_NAME)?)?;
    sources.add(&comgr.data(Kind::Include, header, builtins::NAME)?)?;
    for (name, text) in &input.headers {
        sources.add(&comgr.data(Kind::Include, text.as_bytes(), name)?)?;
    }

    let info = comgr.action(isa, true, options)?;
    let bitcode = act(comgr, Action::CompileSourceToBc, &info, &sources, log)?;

    // The bitcode alone, then with the device libraries (wave64 ones), linked into one module.
    let linking = comgr.data_set()?;
    for bc in bitcode.all(Kind::Bc)? {
        linking.add(&comgr.data(Kind::Bc, &bc, "linked")?)?;
    }
    let info = comgr.action(isa, true, &["wavefrontsize64".into()])?;
    let with_libs = act(comgr, Action::AddDeviceLibraries, &info, &linking, log)?;
    let linked = act(comgr, Action::LinkBcToBc, &info, &with_libs, log)?;

    let codegen: Vec<String> = [
        "-O3",
        "-mllvm",
        "-amdgpu-internalize-symbols",
        "-mcumode",
        "-mwavefrontsize64",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let info = comgr.action(isa, false, &codegen)?;
    let relocatable = act(comgr, Action::CodegenBcToRelocatable, &info, &linked, log)?;
    let info = comgr.action(isa, false, &[])?;
    let executable = act(
        comgr,
        Action::LinkRelocatableToExecutable,
        &info,
        &relocatable,
        log,
    )?;
    let code = executable
        .all(Kind::Executable)?
        .into_iter()
        .next()
        .ok_or("comgr made no executable")?;

    let mut lowered = HashMap::new();
    if !input.expressions.is_empty() {
        let wanted: Vec<String> = input
            .expressions
            .iter()
            .map(|e| names::reduce_expression(e))
            .collect();
        for symbol in comgr.symbols(&code)? {
            // A kernel descriptor demangles as its kernel with a `(.kd)` suffix.
            if symbol.ends_with(".kd") {
                continue;
            }
            let Some(reduced) = names::reduce_symbol(&comgr.demangle(&symbol)?) else {
                continue;
            };
            if wanted.contains(&reduced) {
                if let Ok(c) = CString::new(symbol) {
                    lowered.entry(reduced).or_insert(c);
                }
            }
        }
    }
    Ok((code, lowered))
}

/// One comgr action; its log is appended to `log` whether it succeeds or not.
fn act<'a>(
    comgr: &'a Comgr,
    action: Action,
    info: &comgr::ActionInfo<'a>,
    input: &DataSet<'a>,
    log: &mut String,
) -> Result<DataSet<'a>, String> {
    match comgr.run(action, info, input) {
        Ok(out) => {
            log.push_str(&out.log());
            Ok(out)
        }
        Err((e, out)) => {
            let text = out.map(|o| o.log()).unwrap_or_default();
            let said = !text.trim().is_empty();
            log.push_str(&text);
            // A compiler error is in the log already; comgr's status adds nothing then.
            Err(if said { String::new() } else { e })
        }
    }
}
