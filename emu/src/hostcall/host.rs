//! A device's side of hostcall: one buffer shared by its dispatches, the services' state (open
//! printf messages, the device heap) and where printf text goes, polled by the engines through
//! [`HostServices`].

use super::{HostcallBuffer, Services, MAX_PACKETS};
use crate::launch::host::HostServices;
use crate::memory::{MemError, Memory};
use std::io::Write;

/// Where device printf text goes: `out` for printf, `err` for `fprintf(stderr, ...)`.
pub struct Output {
    pub out: Box<dyn Write + Send>,
    pub err: Box<dyn Write + Send>,
}

impl Default for Output {
    fn default() -> Self {
        Output {
            out: Box::new(std::io::stdout()),
            err: Box::new(std::io::stderr()),
        }
    }
}

pub struct DeviceHostcall {
    pub buffer: u64,
    packets: u32,
    services: Services,
    pub output: Output,
}

impl DeviceHostcall {
    pub fn new(output: Output) -> DeviceHostcall {
        DeviceHostcall {
            buffer: 0,
            packets: 0,
            services: Services::new(),
            output,
        }
    }

    /// The buffer for a dispatch with up to `waves` resident waves: each needs a packet of its
    /// own, or ockl's lock-free stack hands two waves the same one.
    pub fn buffer_for(&mut self, mem: &mut Memory, waves: u32) -> Result<u64, MemError> {
        let packets = waves.clamp(1, MAX_PACKETS as u32);
        if self.buffer == 0 || self.packets < packets {
            if self.buffer != 0 {
                let _ = mem.free(self.buffer);
            }
            self.buffer = HostcallBuffer::create(mem, packets)?;
            self.packets = packets;
        }
        Ok(self.buffer)
    }
}

impl HostServices for DeviceHostcall {
    fn poll(&mut self, mem: &mut Memory) -> Result<(), String> {
        if self.buffer == 0 {
            return Ok(());
        }
        let Output { out, err } = &mut self.output;
        self.services
            .service_split(mem, self.buffer, out.as_mut(), Some(err.as_mut()))
            .map(|_| ())
    }
}
