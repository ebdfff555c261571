//! The host side of ROCm's *hostcall*: device `printf` and `malloc`/`free` for kernels built by
//! hipcc 5.x (code object v4).
//!
//! A kernel that uses hostcall has a `hidden_hostcall_buffer` argument naming a buffer of
//! packets. A wave takes a packet off the buffer's *free* stack, fills its header (service id,
//! the active lanes, the READY flag) and eight u64 per active lane in its payload, pushes it on
//! the *ready* stack, rings the doorbell signal and spins (`s_sleep`) until the host clears
//! READY; then each lane reads its answer from the first two words of its slot and the wave
//! pushes the packet back on the free stack. Here the host answers synchronously:
//! [`Services::service`] handles every ready packet whenever the engine calls it (on a wave's
//! `s_sleep` or `s_sendmsg` interrupt).
//!
//! # Buffer layout
//!
//! From ockl's `hostcall_impl.cl` (`buffer_t`, `header_t`, `payload_t`) and ROCclr's
//! `devhostcall.hpp`/`devhostcall.cpp` (`HostcallBuffer`, `PacketHeader`, `Payload`,
//! `HostcallBuffer::initialize`), checked against the code hipcc 5.2 emits:
//!
//! | offset | field |
//! | --- | --- |
//! | 0 | `headers`: address of the header array |
//! | 8 | `payloads`: address of the payload array |
//! | 16 | `doorbell`: `hsa_signal_t`, the address of an `amd_signal_t` |
//! | 24 | `free_stack`: tagged pointer to the top free packet |
//! | 32 | `ready_stack`: tagged pointer to the top ready packet (0 when empty) |
//! | 40 | `index_mask`: packet count rounded up to a power of two, minus 1 |
//! | 48 | (ours) the packet count; ROCclr keeps a host pointer here, which the device never reads |
//!
//! A tagged pointer is `index | tag * (index_mask + 1)`; the tag grows each time a wave returns
//! the packet (ABA protection) and keeps a pointer to packet 0 non-zero. A header is 24 bytes:
//! `next` (u64, the tagged pointer below it on whichever stack it is on), `activemask` (u64),
//! `service` (u32), `control` (u32, bit 0 READY). A payload is 64 slots × 8 u64, lane `l`'s slot
//! at byte `64 * l`. Initially packet 0 is at the bottom of the free stack (`next` 0) and
//! packet `i > 0` has `next = i - 1`, the pointer to packet 0 carrying tag 1.
//!
//! The doorbell is an `amd_signal_t` (ockl `amd_hsa_signal.h`): `kind` (i64, 1 = user signal),
//! `value` (i64), `event_mailbox_ptr` (u64), `event_id` (u32) at offsets 0, 8, 16, 24, 64
//! bytes in all. `__ockl_hsa_signal_add` (`hsaqs.cl`) adds to `value` atomically, then, if the
//! mailbox pointer is non-zero, stores `event_id` there and executes `s_sendmsg
//! MSG_INTERRUPT` with the event id in M0. Our signal's mailbox is a word inside the buffer,
//! so those accesses stay in bounds and the interrupt tells the engine to serve the packet at
//! once.
//!
//! # Services (ockl `services.cl`, ROCclr `devhcmessages.hpp`)
//!
//! ROCm 5.2 defines 1 `SERVICE_FUNCTION_CALL` (calls a host function pointer), 2
//! `SERVICE_PRINTF` (= `SERVICE_FPRINTF`; see [`printf`]), 3 `SERVICE_DEVMEM` (see
//! [`devmem`]) and 4 `SERVICE_SANITIZER` (AddressSanitizer reports, only in ASan builds of the
//! runtime). Only printf and devmem are served here; the others are reported as errors.

pub(crate) mod devmem;
pub mod host;
pub(crate) mod printf;

use std::io::Write;

use crate::memory::{AllocKind, MemError, Memory};

pub use devmem::DeviceHeap;

pub const SERVICE_FUNCTION_CALL: u32 = 1;
pub const SERVICE_PRINTF: u32 = 2;
pub const SERVICE_DEVMEM: u32 = 3;
pub const SERVICE_SANITIZER: u32 = 4;

/// READY bit of a header's `control`.
pub const CONTROL_READY: u32 = 1;

/// Name of a service id, for messages.
pub fn service_name(id: u32) -> &'static str {
    match id {
        0 => "reserved",
        SERVICE_FUNCTION_CALL => "function call",
        SERVICE_PRINTF => "printf",
        SERVICE_DEVMEM => "devmem",
        SERVICE_SANITIZER => "sanitizer",
        _ => "unknown",
    }
}

/// A hostcall buffer in device memory: the offsets of its layout (from the buffer's address)
/// and [`HostcallBuffer::create`].
#[derive(Clone, Copy, Debug)]
pub struct HostcallBuffer;

impl HostcallBuffer {
    pub const HEADERS: u64 = 0;
    pub const PAYLOADS: u64 = 8;
    pub const DOORBELL: u64 = 16;
    pub const FREE_STACK: u64 = 24;
    pub const READY_STACK: u64 = 32;
    pub const INDEX_MASK: u64 = 40;
    pub const PACKET_COUNT: u64 = 48;
    /// The doorbell's `amd_signal_t`.
    pub const SIGNAL: u64 = 64;
    /// The signal's event mailbox.
    pub const MAILBOX: u64 = 128;
    /// The header array.
    pub const HEADER_ARRAY: u64 = 192;

    pub const SIGNAL_KIND: u64 = 0;
    pub const SIGNAL_VALUE: u64 = 8;
    pub const SIGNAL_MAILBOX_PTR: u64 = 16;
    pub const SIGNAL_EVENT_ID: u64 = 24;
    /// `AMD_SIGNAL_KIND_USER`.
    pub const SIGNAL_KIND_USER: u64 = 1;
    /// ROCclr's `SIGNAL_INIT`: the doorbell's value before any wave rings it.
    pub const SIGNAL_INIT: u64 = 1;
    /// Event id the device stores in the mailbox and sends with its interrupt.
    pub const EVENT_ID: u32 = 0;

    pub const HEADER_SIZE: u64 = 24;
    pub const HEADER_NEXT: u64 = 0;
    pub const HEADER_ACTIVEMASK: u64 = 8;
    pub const HEADER_SERVICE: u64 = 16;
    pub const HEADER_CONTROL: u64 = 20;
    pub const PAYLOAD_SIZE: u64 = 64 * Self::SLOT_SIZE;
    pub const SLOT_SIZE: u64 = 8 * 8;

    /// Where the payload array starts for `packets` packets.
    pub fn payload_array(packets: u32) -> u64 {
        (Self::HEADER_ARRAY + Self::HEADER_SIZE * packets as u64).next_multiple_of(64)
    }

    /// Bytes a buffer of `packets` packets occupies.
    pub fn size(packets: u32) -> u64 {
        Self::payload_array(packets) + Self::PAYLOAD_SIZE * packets as u64
    }

    /// Allocates a buffer of `packets` packets (1 to [`MAX_PACKETS`]), all on the free stack, with its
    /// doorbell signal, and returns its address for `hidden_hostcall_buffer`.
    ///
    /// A wave holds one packet from taking it until its answer is read, and waits for a free
    /// one (spinning with `s_sleep`) when there is none, so `packets` should be at least the
    /// number of waves that can be resident at once.
    pub fn create(mem: &mut Memory, packets: u32) -> Result<u64, MemError> {
        let packets = packets.clamp(1, MAX_PACKETS as u32);
        let addr = mem.alloc(Self::size(packets), AllocKind::Buffer)?;
        // The host side reads and writes the packets directly: initcheck cannot follow it.
        mem.note_host_visible(addr);
        let index_mask = packets.next_power_of_two() as u64 - 1;
        let headers = addr + Self::HEADER_ARRAY;
        let signal = addr + Self::SIGNAL;
        mem.write_u64(addr + Self::HEADERS, headers)?;
        mem.write_u64(addr + Self::PAYLOADS, addr + Self::payload_array(packets))?;
        mem.write_u64(addr + Self::DOORBELL, signal)?;
        mem.write_u64(addr + Self::INDEX_MASK, index_mask)?;
        mem.write_u64(addr + Self::PACKET_COUNT, packets as u64)?;
        mem.write_u64(signal + Self::SIGNAL_KIND, Self::SIGNAL_KIND_USER)?;
        mem.write_u64(signal + Self::SIGNAL_VALUE, Self::SIGNAL_INIT)?;
        mem.write_u64(signal + Self::SIGNAL_MAILBOX_PTR, addr + Self::MAILBOX)?;
        mem.write_u32(signal + Self::SIGNAL_EVENT_ID, Self::EVENT_ID)?;
        // Packet 0 at the bottom; the pointer to it carries tag 1 so that it is not null.
        let mut next = index_mask + 1;
        mem.write_u64(headers + Self::HEADER_NEXT, 0)?;
        for i in 1..packets as u64 {
            mem.write_u64(headers + i * Self::HEADER_SIZE + Self::HEADER_NEXT, next)?;
            next = i;
        }
        mem.write_u64(addr + Self::FREE_STACK, next)?;
        mem.write_u64(addr + Self::READY_STACK, 0)?;
        Ok(addr)
    }
}

/// Most packets a buffer may have (one per resident wave is enough).
pub const MAX_PACKETS: u64 = 1 << 16;

/// Where one buffer's arrays are, as its header says.
struct Layout {
    buffer: u64,
    headers: u64,
    payloads: u64,
    index_mask: u64,
    packets: u64,
}

impl Layout {
    fn read(mem: &Memory, buffer: u64) -> Result<Layout, String> {
        let field = |off: u64| {
            mem.read_u64(buffer.wrapping_add(off))
                .map_err(|e| format!("hostcall buffer {buffer:#x} is unreadable: {e}"))
        };
        let packets = field(HostcallBuffer::PACKET_COUNT)?;
        let index_mask = field(HostcallBuffer::INDEX_MASK)?;
        if packets == 0
            || packets > MAX_PACKETS
            || packets > index_mask.wrapping_add(1)
            || !index_mask.wrapping_add(1).is_power_of_two()
        {
            return Err(format!(
                "hostcall buffer {buffer:#x} is corrupt: {packets} packets with index mask {index_mask:#x}"
            ));
        }
        Ok(Layout {
            buffer,
            headers: field(HostcallBuffer::HEADERS)?,
            payloads: field(HostcallBuffer::PAYLOADS)?,
            index_mask,
            packets,
        })
    }

    fn header(&self, index: u64) -> u64 {
        // Guest-controlled values: wrap rather than overflow; a wrapped address is unmapped.
        self.headers
            .wrapping_add(index * HostcallBuffer::HEADER_SIZE)
    }

    fn slot(&self, index: u64, lane: u32) -> u64 {
        self.payloads
            .wrapping_add(index * HostcallBuffer::PAYLOAD_SIZE)
            .wrapping_add(lane as u64 * HostcallBuffer::SLOT_SIZE)
    }
}

/// Most words one printf message may accumulate (8 MiB) before it counts as runaway.
pub const MAX_MESSAGE_WORDS: usize = 1 << 20;
/// Most messages open at once.
pub const MAX_OPEN_MESSAGES: usize = 1 << 16;

/// Messages being accumulated, by id (ROCclr's `MessageHandler`: ids are small integers,
/// reused once a message ends).
#[derive(Debug, Default)]
struct Messages {
    slots: Vec<Option<Vec<u64>>>,
    free: Vec<u64>,
    open: usize,
}

impl Messages {
    fn open(&mut self) -> Result<u64, String> {
        if self.open >= MAX_OPEN_MESSAGES {
            return Err(format!(
                "more than {MAX_OPEN_MESSAGES} printf messages are open at once (BEGIN without END)"
            ));
        }
        self.open += 1;
        if let Some(id) = self.free.pop() {
            self.slots[id as usize] = Some(Vec::new());
            return Ok(id);
        }
        self.slots.push(Some(Vec::new()));
        Ok(self.slots.len() as u64 - 1)
    }

    fn get(&mut self, id: u64) -> Option<&mut Vec<u64>> {
        self.slots.get_mut(usize::try_from(id).ok()?)?.as_mut()
    }

    fn close(&mut self, id: u64) -> Vec<u64> {
        self.open -= 1;
        self.free.push(id);
        self.slots[id as usize].take().unwrap_or_default()
    }
}

/// Message descriptor fields (slot word 0 of a printf packet).
const DESC_BEGIN: u64 = 1;
const DESC_END: u64 = 2;
const DESC_LEN_SHIFT: u32 = 5;
const DESC_ID_SHIFT: u32 = 8;

/// Host state that outlives one call: printf messages under way and the device heap's blocks.
#[derive(Debug, Default)]
pub struct Services {
    messages: Messages,
    heap: DeviceHeap,
}

impl Services {
    pub fn new() -> Services {
        Services::default()
    }

    /// Handles every packet on `buffer`'s ready stack, in the order the waves pushed them;
    /// printf text (stdout and stderr alike) goes to `out`. Returns the number of packets
    /// handled.
    pub fn service(
        &mut self,
        mem: &mut Memory,
        buffer: u64,
        out: &mut dyn Write,
    ) -> Result<u32, String> {
        self.service_split(mem, buffer, out, None)
    }

    /// As [`Services::service`], with `fprintf(stderr, …)` text going to `err` when given.
    pub fn service_split(
        &mut self,
        mem: &mut Memory,
        buffer: u64,
        out: &mut dyn Write,
        mut err: Option<&mut dyn Write>,
    ) -> Result<u32, String> {
        let top = mem
            .read_u64(buffer.wrapping_add(HostcallBuffer::READY_STACK))
            .map_err(|e| format!("hostcall buffer {buffer:#x} is unreadable: {e}"))?;
        if top == 0 {
            return Ok(0);
        }
        let lay = Layout::read(mem, buffer)?;
        // Walk the stack (newest first) before taking it, so that a corrupt one is left alone.
        let mut order = Vec::new();
        let mut seen = vec![false; lay.packets as usize];
        let mut ptr = top;
        while ptr != 0 {
            let index = ptr & lay.index_mask;
            if index >= lay.packets {
                return Err(format!(
                    "ready stack of buffer {:#x}: pointer {ptr:#x} names packet {index}, but the \
                     buffer has {} packets",
                    lay.buffer, lay.packets
                ));
            }
            if std::mem::replace(&mut seen[index as usize], true) {
                return Err(format!(
                    "ready stack of buffer {:#x} is corrupt: packet {index} is on it twice",
                    lay.buffer
                ));
            }
            order.push(index);
            ptr = mem
                .read_u64(lay.header(index).wrapping_add(HostcallBuffer::HEADER_NEXT))
                .map_err(|e| format!("packet {index}: header unreadable: {e}"))?;
        }
        mem.write_u64(buffer.wrapping_add(HostcallBuffer::READY_STACK), 0)
            .map_err(|e| e.to_string())?;
        order.reverse();
        for &index in &order {
            self.packet(mem, &lay, index, out, reborrow(&mut err))?;
        }
        Ok(order.len() as u32)
    }

    /// Device-heap blocks still allocated.
    pub fn heap(&self) -> &DeviceHeap {
        &self.heap
    }

    /// Frees every device-heap block (when the device or its memory goes away).
    pub fn release_heap(&mut self, mem: &mut Memory) {
        self.heap.release_all(mem);
    }

    /// printf messages begun and not yet ended.
    pub fn open_messages(&self) -> usize {
        self.messages.open
    }

    fn packet(
        &mut self,
        mem: &mut Memory,
        lay: &Layout,
        index: u64,
        out: &mut dyn Write,
        mut err: Option<&mut dyn Write>,
    ) -> Result<(), String> {
        let header = lay.header(index);
        let unreadable = |e: MemError| format!("packet {index}: {e}");
        let activemask = mem
            .read_u64(header.wrapping_add(HostcallBuffer::HEADER_ACTIVEMASK))
            .map_err(unreadable)?;
        let service = mem
            .read_u32(header.wrapping_add(HostcallBuffer::HEADER_SERVICE))
            .map_err(unreadable)?;
        let control = mem
            .read_u32(header.wrapping_add(HostcallBuffer::HEADER_CONTROL))
            .map_err(unreadable)?;
        let what = format!(
            "packet {index} (service {service}, {})",
            service_name(service)
        );
        if control & CONTROL_READY == 0 {
            return Err(format!(
                "{what} is on the ready stack without its READY flag"
            ));
        }
        match service {
            SERVICE_PRINTF | SERVICE_DEVMEM => {}
            SERVICE_FUNCTION_CALL => {
                return Err(format!(
                    "{what}: calling host function pointers from the device is not supported"
                ))
            }
            SERVICE_SANITIZER => {
                return Err(format!(
                    "{what}: AddressSanitizer reports from the device are not supported"
                ))
            }
            _ => return Err(format!("{what}: no such hostcall service")),
        }
        let mut lanes = activemask;
        while lanes != 0 {
            let lane = lanes.trailing_zeros();
            lanes &= lanes - 1;
            let at = lay.slot(index, lane);
            let mut slot = [0u64; 8];
            let bytes = mem
                .bytes(at, 64)
                .map_err(|e| format!("{what}, lane {lane}: {e}"))?;
            for (w, b) in slot.iter_mut().zip(bytes.chunks_exact(8)) {
                *w = u64::from_le_bytes(b.try_into().unwrap());
            }
            let result = if service == SERVICE_PRINTF {
                self.printf(&mut slot, out, reborrow(&mut err))
            } else {
                self.heap.request(mem, &mut slot)
            };
            result.map_err(|e| format!("{what}, lane {lane}: {e}"))?;
            let bytes = mem
                .bytes_mut(at, 64)
                .map_err(|e| format!("{what}, lane {lane}: {e}"))?;
            for (w, b) in slot.iter().zip(bytes.chunks_exact_mut(8)) {
                b.copy_from_slice(&w.to_le_bytes());
            }
        }
        mem.write_u32(
            header.wrapping_add(HostcallBuffer::HEADER_CONTROL),
            control & !CONTROL_READY,
        )
        .map_err(unreadable)
    }

    /// One lane's part of a printf message (ROCclr `MessageHandler::handlePayload`).
    fn printf(
        &mut self,
        slot: &mut [u64; 8],
        out: &mut dyn Write,
        err: Option<&mut dyn Write>,
    ) -> Result<(), String> {
        let mut desc = slot[0];
        let id = if desc & DESC_BEGIN != 0 {
            let id = self.messages.open()?;
            desc = (desc & !DESC_BEGIN & ((1 << DESC_ID_SHIFT) - 1)) | id << DESC_ID_SHIFT;
            slot[0] = desc;
            id
        } else {
            let id = desc >> DESC_ID_SHIFT;
            if self.messages.get(id).is_none() {
                return Err(format!(
                    "printf message {id} is not open (descriptor {desc:#x}: no BEGIN, or \
                     already ended)"
                ));
            }
            id
        };
        let len = ((desc >> DESC_LEN_SHIFT) & 7) as usize;
        let message = self.messages.get(id).expect("opened or checked above");
        if message.len() + len > MAX_MESSAGE_WORDS {
            return Err(format!(
                "printf message {id} exceeds {MAX_MESSAGE_WORDS} words without an END"
            ));
        }
        message.extend_from_slice(&slot[1..1 + len]);
        if desc & DESC_END == 0 {
            return Ok(());
        }
        let message = self.messages.close(id);
        slot[0] = match printf::run_message(&message) {
            None => -1i64 as u64,
            Some((stream, text)) => {
                let sink: &mut dyn Write = match (stream, err) {
                    (printf::Stream::Stderr, Some(e)) => e,
                    _ => out,
                };
                match sink.write_all(&text).and_then(|()| sink.flush()) {
                    Ok(()) => text.len().min(i32::MAX as usize) as u64,
                    Err(_) => -1i64 as u64,
                }
            }
        };
        Ok(())
    }
}

/// `err.as_deref_mut()`, with the trait object's lifetime shortened to the borrow's.
fn reborrow<'a>(err: &'a mut Option<&mut dyn Write>) -> Option<&'a mut dyn Write> {
    match err {
        Some(e) => Some(&mut **e),
        None => None,
    }
}

#[cfg(test)]
mod tests;
