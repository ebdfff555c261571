//! What a host allocation is: the runtime keeps one [`AllocInfo`] per allocation it made or
//! registered, `hipPointerGetAttributes` answers from it, each free call accepts only its own
//! classes, and the leak report names the call that made it.

/// Which call made an allocation, so that it is freed with the matching call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AllocClass {
    /// `hipMalloc`, `hipMallocPitch`, ...: device memory.
    Device,
    /// `hipHostMalloc`: pinned host memory (here: the same host memory).
    Host,
    /// `hipMallocManaged`.
    Managed,
    /// `hipHostRegister`ed memory of the program's own.
    Registered,
    /// Physical memory (`hipMemCreate`) mapped into a reserved range (`hipMemMap`) and made
    /// accessible (`hipMemSetAccess`); `hipMemUnmap` removes it.
    Mapped,
    /// A buffer of imported external memory (`hipExternalMemoryGetMappedBuffer`); `hipFree`
    /// removes it.
    External,
}

impl AllocClass {
    /// The HIP call that makes an allocation of this class, for messages.
    pub(crate) fn api_name(self) -> &'static str {
        match self {
            AllocClass::Device => "hipMalloc",
            AllocClass::Host => "hipHostMalloc",
            AllocClass::Managed => "hipMallocManaged",
            AllocClass::Registered => "hipHostRegister",
            AllocClass::Mapped => "hipMemMap",
            AllocClass::External => "hipExternalMemoryGetMappedBuffer",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct AllocInfo {
    pub(crate) size: u64,
    pub(crate) class: AllocClass,
    pub(crate) flags: u32,
    /// The device current when it was made.
    pub(crate) device: i32,
    /// A number no other allocation of the run has (`HIP_POINTER_ATTRIBUTE_BUFFER_ID`), even one
    /// at the same address after a free.
    pub(crate) id: u32,
}
