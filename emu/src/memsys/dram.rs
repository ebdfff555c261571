//! Device memory (HBM) as its channels: what a line that misses the L2, or a dirty line the L2
//! evicts, costs in memory time.
//!
//! Each channel moves `1 / channels` of the board's peak bandwidth, and loses time to what a
//! DRAM channel cannot avoid, with the device timings of `params.toml`:
//! - **refresh**: every `refresh_interval_ns` the channel refreshes all its banks and moves
//!   nothing for `refresh_ns` (each channel at its own phase of the interval);
//! - **read/write turnaround**: the data bus changes direction between reads and writes
//!   (`read_to_write_ns`, `write_to_read_ns`, the JEDEC minimums between a read and a write
//!   command and back). Memory controllers keep writes in a queue and write it out whole when
//!   it is full, so the bus turns twice per `write_queue` writes and not for every write; an
//!   evicted line costs its requester nothing (the L2 posts it), only memory time.
//!
//! Row activations are not modelled: in a stream of lines each channel's banks open their next
//! rows while another bank transfers, and a dependent load's activation is part of the
//! measured latency (`latency_cycles`).
//!
//! Times are in 1/[`super::FRAC`] engine cycles, so a line that takes a fraction of a cycle
//! per channel adds up exactly.

use super::divisor::Divisor;
use super::params::Dram;
use super::FRAC;

/// A channel's write queue going out: when (in 1/FRAC cycles) and how many lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOut {
    pub start: u64,
    pub lines: u64,
}

/// One channel's state.
#[derive(Clone, Debug, Default)]
struct Channel {
    /// When its data bus is free.
    free: u64,
    /// Writes queued and not yet written out.
    queued_writes: u32,
    /// When its next refresh starts.
    next_refresh: u64,
}

/// The memory's channels, their queues and their timings in engine cycles.
#[derive(Clone, Debug)]
pub struct DeviceMemory {
    channels: Vec<Channel>,
    /// Bytes of consecutive addresses one channel takes before the next.
    interleave: Divisor,
    /// `channels.len()`.
    channel_count: Divisor,
    /// Time one line occupies a channel's bus.
    per_line: u64,
    refresh: u64,
    refresh_interval: u64,
    /// Both bus turnarounds of one write-out: read to write, then write back to read.
    turnarounds: u64,
    write_queue: u32,
}

impl DeviceMemory {
    /// The memory of `params`, carrying lines of `line` bytes, for an engine clocked at
    /// `clock_khz`; consecutive `interleave`-byte blocks go to consecutive channels.
    pub fn new(params: &Dram, line: u32, interleave: u64, clock_khz: u32) -> DeviceMemory {
        let channels = params.channels.max(1);
        let cycles_per_ns = clock_khz.max(1) as f64 / 1e6;
        let frac = |ns: f64| (ns * cycles_per_ns * FRAC as f64).round() as u64;
        // Bytes per engine cycle of one channel.
        let channel_bytes_per_cycle =
            params.gb_per_s / channels as f64 * 1e9 / (clock_khz.max(1) as f64 * 1e3);
        let refresh_interval = frac(params.refresh_interval_ns).max(1);
        DeviceMemory {
            channels: (0..channels)
                .map(|c| Channel {
                    next_refresh: first_refresh(c as u64, refresh_interval),
                    ..Channel::default()
                })
                .collect(),
            interleave: Divisor::new(interleave.max(line as u64)),
            channel_count: Divisor::new(channels as u64),
            per_line: ((line as f64 / channel_bytes_per_cycle) * FRAC as f64)
                .round()
                .max(1.0) as u64,
            refresh: frac(params.refresh_ns).min(refresh_interval - 1),
            refresh_interval,
            turnarounds: frac(params.read_to_write_ns + params.write_to_read_ns),
            write_queue: params.write_queue.max(1),
        }
    }

    fn channel(&mut self, addr: u64) -> &mut Channel {
        let c = self.channel_count.remainder(self.interleave.quotient(addr));
        &mut self.channels[c as usize]
    }

    /// Reads the line at `addr`, asked for at `at` (in 1/FRAC cycles): when its transfer
    /// starts, in 1/FRAC cycles.
    pub fn read(&mut self, addr: u64, at: u64) -> u64 {
        let (per_line, refresh, interval) = (self.per_line, self.refresh, self.refresh_interval);
        let c = self.channel(addr);
        let turn = c.turn(at, refresh, interval);
        c.free = turn + per_line;
        turn
    }

    /// Queues a write of the line at `addr`, sent at `at` (in 1/FRAC cycles); a full queue is
    /// written out at once, and returned.
    pub fn write(&mut self, addr: u64, at: u64) -> Option<WriteOut> {
        let (per_line, refresh, interval) = (self.per_line, self.refresh, self.refresh_interval);
        let (turnarounds, queue) = (self.turnarounds, self.write_queue);
        let c = self.channel(addr);
        c.queued_writes += 1;
        if c.queued_writes < queue {
            return None;
        }
        let turn = c.turn(at, refresh, interval);
        let lines = c.queued_writes as u64;
        c.free = turn + turnarounds + per_line * lines;
        c.queued_writes = 0;
        Some(WriteOut { start: turn, lines })
    }

    /// A new launch: the queues are empty and the refresh schedule starts again.
    pub fn new_launch(&mut self) {
        let interval = self.refresh_interval;
        for (i, c) in self.channels.iter_mut().enumerate() {
            *c = Channel {
                next_refresh: first_refresh(i as u64, interval),
                ..Channel::default()
            };
        }
    }
}

/// When channel `c` first refreshes: a fixed pseudo-random point of the interval per channel.
/// Channels refresh on their own schedules; evenly spaced phases would line up with a
/// dependent chain of loads that visits the channels in turn, and make it wait at every one.
fn first_refresh(c: u64, interval: u64) -> u64 {
    let phase = (c + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 44; // 20 bits
    interval * phase / (1 << 20)
}

impl Channel {
    /// When a transfer asked for at `at` can start: after the bus is free and after any
    /// refresh that begins before then (a refresh waits for the transfer in progress).
    fn turn(&mut self, at: u64, refresh: u64, interval: u64) -> u64 {
        loop {
            // Refreshes that begin and end while the channel is idle cost nothing: skip them
            // (all but the last before `at`, which may still be running then).
            if self.free <= self.next_refresh && self.next_refresh + interval <= at {
                self.next_refresh += (at - self.next_refresh) / interval * interval;
            }
            let turn = at.max(self.free);
            if self.next_refresh > turn {
                return turn;
            }
            let start = self.next_refresh.max(self.free);
            self.free = start + refresh;
            self.next_refresh += interval;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At 1 GHz and 64 GB/s per channel, one 64-byte line per cycle per channel.
    fn memory(
        channels: u32,
        refresh: (f64, f64),
        turnarounds: (f64, f64),
        queue: u32,
    ) -> DeviceMemory {
        let params = Dram {
            latency_cycles: 500,
            gb_per_s: 64.0 * channels as f64,
            source: "§test".into(),
            channels,
            refresh_ns: refresh.0,
            refresh_interval_ns: refresh.1,
            read_to_write_ns: turnarounds.0,
            write_to_read_ns: turnarounds.1,
            write_queue: queue,
            timing_source: "§test".into(),
        };
        DeviceMemory::new(&params, 64, 256, 1_000_000)
    }

    #[test]
    fn a_channel_moves_a_line_per_line_time_and_channels_work_side_by_side() {
        let mut m = memory(2, (0.0, 1e9), (0.0, 0.0), 16);
        // Blocks of 256 bytes alternate between the channels.
        let starts: Vec<u64> = [0, 64, 256, 128, 320]
            .iter()
            .map(|&a| m.read(a, 0) / FRAC)
            .collect();
        assert_eq!(starts, [0, 1, 0, 2, 1]);
    }

    #[test]
    fn refresh_takes_its_share_of_a_stream() {
        // 100 ns of refresh every 1000 ns: 9,000 lines back to back take 9 or 10 refreshes
        // more, as the channel's phase falls.
        let mut m = memory(1, (100.0, 1000.0), (0.0, 0.0), 16);
        let mut last = 0;
        for i in 0..9000u64 {
            last = m.read(i * 64, 0);
        }
        assert!((9900..=10_000).contains(&(last / FRAC + 1)), "{last}");
    }

    #[test]
    fn refreshes_while_idle_cost_nothing() {
        let mut m = memory(1, (100.0, 1000.0), (0.0, 0.0), 16);
        let phase = first_refresh(0, 1000 * FRAC) / FRAC;
        // Long after the first refreshes, a read between two of them starts at once; one asked
        // for during a refresh waits for its end.
        assert_eq!(m.read(0, (phase + 5_500) * FRAC) / FRAC, phase + 5_500);
        assert_eq!(m.read(0, (phase + 6_050) * FRAC) / FRAC, phase + 6_100);
    }

    #[test]
    fn writes_go_out_a_queue_at_a_time_with_two_turnarounds() {
        // Turnarounds of 10 + 20 ns, a queue of 4: the fourth write occupies the bus for
        // 30 + 4 cycles; the first three cost nothing yet.
        let mut m = memory(1, (0.0, 1e9), (10.0, 20.0), 4);
        for i in 0..3u64 {
            assert_eq!(m.write(i * 64, 0), None);
        }
        assert_eq!(m.read(0, 0), 0);
        let out = m.write(192, FRAC);
        assert_eq!(
            out,
            Some(WriteOut {
                start: FRAC,
                lines: 4
            })
        );
        // The read above took cycle 0; the write-out starts at 1 and ends at 1 + 30 + 4.
        assert_eq!(m.read(0, 0) / FRAC, 35);
    }
}
