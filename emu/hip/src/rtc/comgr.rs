//! AMD's code-object manager (`libamd_comgr.so.2`, Debian's `libamd-comgr2`), opened at run
//! time: the library loads and every other HIP call works on a machine without it, and only
//! `hiprtcCompileProgram` fails, saying which package to install.
//!
//! Only the functions hiprtc calls are declared, with the signatures and enum values of
//! `amd_comgr.h` from `libamd-comgr-dev` 5.2.3 (comgr 2.4; every function used is from 2.2 or
//! earlier). The wrappers own their handles and release them on drop, so an early return never
//! leaks a comgr object.

use libloading::Library;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::OnceLock;

pub(crate) const LIBRARY: &str = "libamd_comgr.so.2";
pub(crate) const PACKAGE: &str = "libamd-comgr2";

type Status = u32;
const SUCCESS: Status = 0;

/// `amd_comgr_data_kind_t`.
#[derive(Clone, Copy)]
#[repr(u32)]
pub(crate) enum Kind {
    Source = 1,
    Include = 2,
    Log = 5,
    Bc = 6,
    Executable = 8,
    Bytes = 9,
}

/// `amd_comgr_action_kind_t`.
#[derive(Clone, Copy)]
#[repr(u32)]
pub(crate) enum Action {
    CompileSourceToBc = 2,
    AddDeviceLibraries = 3,
    LinkBcToBc = 4,
    CodegenBcToRelocatable = 6,
    LinkRelocatableToExecutable = 9,
}

/// `AMD_COMGR_LANGUAGE_HIP`.
const LANGUAGE_HIP: u32 = 4;
/// `AMD_COMGR_SYMBOL_INFO_NAME_LENGTH`, `AMD_COMGR_SYMBOL_INFO_NAME`.
const SYMBOL_INFO_NAME_LENGTH: u32 = 0;
const SYMBOL_INFO_NAME: u32 = 1;

/// Every comgr handle is a struct of one `uint64_t`, passed by value.
#[repr(C)]
#[derive(Clone, Copy)]
struct Handle(u64);

type SymbolCallback = unsafe extern "C" fn(Handle, *mut c_void) -> Status;

/// The entry points, resolved once.
pub(crate) struct Comgr {
    _lib: Library,
    create_data: unsafe extern "C" fn(u32, *mut Handle) -> Status,
    release_data: unsafe extern "C" fn(Handle) -> Status,
    set_data: unsafe extern "C" fn(Handle, usize, *const c_char) -> Status,
    set_data_name: unsafe extern "C" fn(Handle, *const c_char) -> Status,
    get_data: unsafe extern "C" fn(Handle, *mut usize, *mut c_char) -> Status,
    create_data_set: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy_data_set: unsafe extern "C" fn(Handle) -> Status,
    data_set_add: unsafe extern "C" fn(Handle, Handle) -> Status,
    action_data_count: unsafe extern "C" fn(Handle, u32, *mut usize) -> Status,
    action_data_get_data: unsafe extern "C" fn(Handle, u32, usize, *mut Handle) -> Status,
    create_action_info: unsafe extern "C" fn(*mut Handle) -> Status,
    destroy_action_info: unsafe extern "C" fn(Handle) -> Status,
    action_info_set_isa_name: unsafe extern "C" fn(Handle, *const c_char) -> Status,
    action_info_set_language: unsafe extern "C" fn(Handle, u32) -> Status,
    action_info_set_option_list:
        unsafe extern "C" fn(Handle, *const *const c_char, usize) -> Status,
    action_info_set_logging: unsafe extern "C" fn(Handle, bool) -> Status,
    do_action: unsafe extern "C" fn(u32, Handle, Handle, Handle) -> Status,
    iterate_symbols: unsafe extern "C" fn(Handle, SymbolCallback, *mut c_void) -> Status,
    symbol_get_info: unsafe extern "C" fn(Handle, u32, *mut c_void) -> Status,
    demangle_symbol_name: unsafe extern "C" fn(Handle, *mut Handle) -> Status,
    status_string: unsafe extern "C" fn(Status, *mut *const c_char) -> Status,
}

/// The library, opened at the first compilation; the error says why it could not be.
pub(crate) fn get() -> Result<&'static Comgr, String> {
    static COMGR: OnceLock<Result<Comgr, String>> = OnceLock::new();
    COMGR.get_or_init(open).as_ref().map_err(Clone::clone)
}

fn open() -> Result<Comgr, String> {
    // SAFETY: loading comgr runs its initialisers, which have no preconditions.
    let lib = unsafe { Library::new(LIBRARY) }.map_err(|e| e.to_string())?;
    macro_rules! sym {
        ($name:literal) => {
            // SAFETY: the symbol has the type declared for its field (amd_comgr.h).
            *unsafe { lib.get(concat!($name, "\0").as_bytes()) }.map_err(|e| e.to_string())?
        };
    }
    Ok(Comgr {
        create_data: sym!("amd_comgr_create_data"),
        release_data: sym!("amd_comgr_release_data"),
        set_data: sym!("amd_comgr_set_data"),
        set_data_name: sym!("amd_comgr_set_data_name"),
        get_data: sym!("amd_comgr_get_data"),
        create_data_set: sym!("amd_comgr_create_data_set"),
        destroy_data_set: sym!("amd_comgr_destroy_data_set"),
        data_set_add: sym!("amd_comgr_data_set_add"),
        action_data_count: sym!("amd_comgr_action_data_count"),
        action_data_get_data: sym!("amd_comgr_action_data_get_data"),
        create_action_info: sym!("amd_comgr_create_action_info"),
        destroy_action_info: sym!("amd_comgr_destroy_action_info"),
        action_info_set_isa_name: sym!("amd_comgr_action_info_set_isa_name"),
        action_info_set_language: sym!("amd_comgr_action_info_set_language"),
        action_info_set_option_list: sym!("amd_comgr_action_info_set_option_list"),
        action_info_set_logging: sym!("amd_comgr_action_info_set_logging"),
        do_action: sym!("amd_comgr_do_action"),
        iterate_symbols: sym!("amd_comgr_iterate_symbols"),
        symbol_get_info: sym!("amd_comgr_symbol_get_info"),
        demangle_symbol_name: sym!("amd_comgr_demangle_symbol_name"),
        status_string: sym!("amd_comgr_status_string"),
        _lib: lib,
    })
}

impl Comgr {
    fn check(&self, what: &str, status: Status) -> Result<(), String> {
        if status == SUCCESS {
            return Ok(());
        }
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: comgr writes a pointer to a static string.
        let ok = unsafe { (self.status_string)(status, &mut text) } == SUCCESS;
        let text = if ok && !text.is_null() {
            // SAFETY: a NUL-terminated static string from comgr.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        } else {
            format!("status {status}")
        };
        Err(format!("{what}: {text}"))
    }

    /// A data object of `kind` holding `bytes` under `name`.
    pub(crate) fn data(&self, kind: Kind, bytes: &[u8], name: &str) -> Result<Data<'_>, String> {
        let mut h = Handle(0);
        // SAFETY: an out-pointer to a handle.
        self.check("amd_comgr_create_data", unsafe {
            (self.create_data)(kind as u32, &mut h)
        })?;
        let d = Data { comgr: self, h };
        // SAFETY: comgr copies `bytes`.
        self.check("amd_comgr_set_data", unsafe {
            (self.set_data)(h, bytes.len(), bytes.as_ptr() as *const c_char)
        })?;
        let name = CString::new(name).map_err(|_| format!("{name:?}: NUL in a name"))?;
        // SAFETY: comgr copies the name.
        self.check("amd_comgr_set_data_name", unsafe {
            (self.set_data_name)(h, name.as_ptr())
        })?;
        Ok(d)
    }

    pub(crate) fn data_set(&self) -> Result<DataSet<'_>, String> {
        let mut h = Handle(0);
        // SAFETY: an out-pointer to a handle.
        self.check("amd_comgr_create_data_set", unsafe {
            (self.create_data_set)(&mut h)
        })?;
        Ok(DataSet { comgr: self, h })
    }

    /// Action options: the ISA (`amdgcn-amd-amdhsa--gfx900`), HIP as the language if `hip`,
    /// the options, and logging on (the log goes into the result set).
    pub(crate) fn action(
        &self,
        isa: &str,
        hip: bool,
        options: &[String],
    ) -> Result<ActionInfo<'_>, String> {
        let mut h = Handle(0);
        // SAFETY: an out-pointer to a handle.
        self.check("amd_comgr_create_action_info", unsafe {
            (self.create_action_info)(&mut h)
        })?;
        let a = ActionInfo { comgr: self, h };
        let isa = CString::new(isa).map_err(|_| "NUL in the ISA name".to_string())?;
        // SAFETY: comgr copies the string.
        self.check("amd_comgr_action_info_set_isa_name", unsafe {
            (self.action_info_set_isa_name)(h, isa.as_ptr())
        })?;
        if hip {
            // SAFETY: a valid handle and language.
            self.check("amd_comgr_action_info_set_language", unsafe {
                (self.action_info_set_language)(h, LANGUAGE_HIP)
            })?;
        }
        let options: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()).map_err(|_| format!("{o:?}: NUL in an option")))
            .collect::<Result<_, _>>()?;
        let argv: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `argv` points at `options`, alive for the call; comgr copies them.
        self.check("amd_comgr_action_info_set_option_list", unsafe {
            (self.action_info_set_option_list)(h, argv.as_ptr(), argv.len())
        })?;
        // SAFETY: a valid handle.
        self.check("amd_comgr_action_info_set_logging", unsafe {
            (self.action_info_set_logging)(h, true)
        })?;
        Ok(a)
    }

    /// Runs `action` on `input` into a new set; `Err` carries the set too, for its log.
    pub(crate) fn run<'a>(
        &'a self,
        action: Action,
        info: &ActionInfo<'a>,
        input: &DataSet<'a>,
    ) -> Result<DataSet<'a>, (String, Option<DataSet<'a>>)> {
        let out = self.data_set().map_err(|e| (e, None))?;
        // SAFETY: valid handles owned by this call's callers.
        let status = unsafe { (self.do_action)(action as u32, info.h, input.h, out.h) };
        match self.check("amd_comgr_do_action", status) {
            Ok(()) => Ok(out),
            Err(e) => Err((e, Some(out))),
        }
    }

    /// The Itanium demangling of `name` (unchanged if it is not a mangled name).
    pub(crate) fn demangle(&self, name: &str) -> Result<String, String> {
        let mangled = self.data(Kind::Bytes, name.as_bytes(), "")?;
        let mut h = Handle(0);
        // SAFETY: a valid data handle and an out-pointer.
        self.check("amd_comgr_demangle_symbol_name", unsafe {
            (self.demangle_symbol_name)(mangled.h, &mut h)
        })?;
        let demangled = Data { comgr: self, h };
        Ok(String::from_utf8_lossy(&demangled.bytes()?).into_owned())
    }

    /// The names of the symbols of an ELF code object.
    pub(crate) fn symbols(&self, elf: &[u8]) -> Result<Vec<String>, String> {
        unsafe extern "C" fn each(symbol: Handle, names: *mut c_void) -> Status {
            // SAFETY: `names` is the `Collect` passed below, alive for the iteration.
            let c = unsafe { &mut *(names as *mut Collect) };
            let mut len = 0usize;
            // SAFETY: NAME_LENGTH writes a size_t.
            let s = unsafe {
                (c.comgr.symbol_get_info)(
                    symbol,
                    SYMBOL_INFO_NAME_LENGTH,
                    &mut len as *mut usize as *mut c_void,
                )
            };
            if s != SUCCESS {
                return s;
            }
            // NAME writes the name and its NUL.
            let mut buf = vec![0u8; len + 1];
            // SAFETY: a buffer of the length comgr gave, plus the NUL.
            let s = unsafe {
                (c.comgr.symbol_get_info)(symbol, SYMBOL_INFO_NAME, buf.as_mut_ptr() as *mut c_void)
            };
            if s != SUCCESS {
                return s;
            }
            buf.truncate(len);
            c.names.push(String::from_utf8_lossy(&buf).into_owned());
            SUCCESS
        }
        struct Collect<'a> {
            comgr: &'a Comgr,
            names: Vec<String>,
        }
        let data = self.data(Kind::Executable, elf, "")?;
        let mut c = Collect {
            comgr: self,
            names: Vec::new(),
        };
        // SAFETY: the callback reads `c` only during the call.
        self.check("amd_comgr_iterate_symbols", unsafe {
            (self.iterate_symbols)(data.h, each, &mut c as *mut Collect as *mut c_void)
        })?;
        Ok(c.names)
    }
}

/// A data object, released on drop.
pub(crate) struct Data<'a> {
    comgr: &'a Comgr,
    h: Handle,
}

impl Data<'_> {
    pub(crate) fn bytes(&self) -> Result<Vec<u8>, String> {
        let mut len = 0usize;
        // SAFETY: a null buffer asks for the size.
        self.comgr.check("amd_comgr_get_data", unsafe {
            (self.comgr.get_data)(self.h, &mut len, std::ptr::null_mut())
        })?;
        let mut buf = vec![0u8; len];
        // SAFETY: a buffer of the size comgr gave.
        self.comgr.check("amd_comgr_get_data", unsafe {
            (self.comgr.get_data)(self.h, &mut len, buf.as_mut_ptr() as *mut c_char)
        })?;
        buf.truncate(len);
        Ok(buf)
    }
}

impl Drop for Data<'_> {
    fn drop(&mut self) {
        // SAFETY: a handle this wrapper owns.
        unsafe { (self.comgr.release_data)(self.h) };
    }
}

/// A data set, destroyed on drop.
pub(crate) struct DataSet<'a> {
    comgr: &'a Comgr,
    h: Handle,
}

impl DataSet<'_> {
    /// Adds `data` (the set takes its own reference).
    pub(crate) fn add(&self, data: &Data<'_>) -> Result<(), String> {
        // SAFETY: valid handles.
        self.comgr.check("amd_comgr_data_set_add", unsafe {
            (self.comgr.data_set_add)(self.h, data.h)
        })
    }

    fn count(&self, kind: Kind) -> usize {
        let mut n = 0usize;
        // SAFETY: a valid handle and an out-pointer.
        let s = unsafe { (self.comgr.action_data_count)(self.h, kind as u32, &mut n) };
        if s == SUCCESS {
            n
        } else {
            0
        }
    }

    /// The contents of every data object of `kind`, in order.
    pub(crate) fn all(&self, kind: Kind) -> Result<Vec<Vec<u8>>, String> {
        (0..self.count(kind))
            .map(|i| {
                let mut h = Handle(0);
                // SAFETY: an index below the count, an out-pointer.
                self.comgr.check("amd_comgr_action_data_get_data", unsafe {
                    (self.comgr.action_data_get_data)(self.h, kind as u32, i, &mut h)
                })?;
                Data {
                    comgr: self.comgr,
                    h,
                }
                .bytes()
            })
            .collect()
    }

    /// The log the action wrote into this set.
    pub(crate) fn log(&self) -> String {
        self.all(Kind::Log)
            .unwrap_or_default()
            .iter()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .collect()
    }
}

impl Drop for DataSet<'_> {
    fn drop(&mut self) {
        // SAFETY: a handle this wrapper owns.
        unsafe { (self.comgr.destroy_data_set)(self.h) };
    }
}

/// Action options, destroyed on drop.
pub(crate) struct ActionInfo<'a> {
    comgr: &'a Comgr,
    h: Handle,
}

impl Drop for ActionInfo<'_> {
    fn drop(&mut self) {
        // SAFETY: a handle this wrapper owns.
        unsafe { (self.comgr.destroy_action_info)(self.h) };
    }
}
