//! What `s_memtime` and `s_memrealtime` read.
//!
//! On hardware `s_memtime` counts shader clock cycles and `s_memrealtime` a constant 100 MHz
//! real-time clock; programs turn their differences into time with the rates the runtime reports
//! (`hipDeviceProp_t::clockRate`, `hipDeviceAttributeWallClockRate`), typically to spin a kernel
//! for a while. An emulator runs a wave far slower than a GPU, so a clock that counts the wave's
//! own instructions makes "spin for one second" take hours. Two sources, chosen per launch:
//!
//! - [`Clock::Instructions`]: both count the instructions the wave has executed. Deterministic
//!   (the same on any number of threads, in any order of the workgroups); the timing model
//!   and the library's own launches use it.
//! - [`Clock::Host`]: both follow the host's monotonic clock, `s_memtime` at the board's shader
//!   clock and `s_memrealtime` at 100 MHz, so a wait for N ticks lasts about the time the
//!   reported rate promises. What a kernel computes from these reads then depends on how fast
//!   the host runs it; kernels that read no clock are unaffected, results and statistics
//!   included.
//!
//! Device time under [`Clock::Host`]: a GPU runs every workgroup it has room for at once, the
//! functional engine a few at a time (one per host thread). So that a grid whose workgroups
//! each wait one second takes about one second, as on the device, and not a second per
//! workgroup, device time runs `dilation` times as fast as host time during a launch: the
//! workgroups the device would hold at once over the threads running them (at least 1). Device
//! time never goes back: a launch starts at the latest time any launch has read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// The rate of `s_memrealtime` on every GCN and CDNA part.
pub const REALTIME_HZ: u64 = 100_000_000;

/// Where a launch's clock reads come from (see the module comment).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Clock {
    #[default]
    Instructions,
    /// `s_memtime` runs at `shader_hz`; device time is `start` nanoseconds when the host's
    /// clock reads `host_start`, and runs `dilation` times as fast.
    Host {
        shader_hz: u64,
        host_start: u64,
        start: u64,
        dilation: u64,
    },
}

/// Nanoseconds since the process first read the host clock.
fn host_ns() -> u64 {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// The latest device time (ns) a launch read, so that the next starts no earlier.
static LATEST: AtomicU64 = AtomicU64::new(0);

/// Ticks of a `hz` clock after `ns` nanoseconds.
fn ticks(ns: u64, hz: u64) -> u64 {
    (ns as u128 * hz as u128 / 1_000_000_000) as u64
}

impl Clock {
    /// The host clock for a launch starting now, at `shader_hz`, its device time running
    /// `dilation` times as fast as the host's (clamped to at least 1).
    pub fn host(shader_hz: u64, dilation: u64) -> Clock {
        let now = host_ns();
        Clock::Host {
            shader_hz,
            host_start: now,
            start: now.max(LATEST.load(Ordering::Relaxed)),
            dilation: dilation.max(1),
        }
    }

    /// Device time in nanoseconds (`Host` only).
    fn device_ns(host_start: u64, start: u64, dilation: u64) -> u64 {
        let t = start
            + host_ns()
                .saturating_sub(host_start)
                .saturating_mul(dilation);
        LATEST.fetch_max(t, Ordering::Relaxed);
        t
    }

    /// The value of `s_memtime` for a wave that has executed `instructions`.
    pub fn memtime(self, instructions: u64) -> u64 {
        match self {
            Clock::Instructions => instructions,
            Clock::Host {
                shader_hz,
                host_start,
                start,
                dilation,
            } => ticks(Self::device_ns(host_start, start, dilation), shader_hz),
        }
    }

    /// The value of `s_memrealtime` for a wave that has executed `instructions`.
    pub fn memrealtime(self, instructions: u64) -> u64 {
        match self {
            Clock::Instructions => instructions,
            Clock::Host {
                host_start,
                start,
                dilation,
                ..
            } => ticks(Self::device_ns(host_start, start, dilation), REALTIME_HZ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn instruction_clocks_count_instructions() {
        assert_eq!(Clock::Instructions.memtime(41), 41);
        assert_eq!(Clock::Instructions.memrealtime(41), 41);
    }

    #[test]
    fn host_clocks_follow_host_time_at_their_rates() {
        let c = Clock::host(1_630_000_000, 1);
        let (t0, r0) = (c.memtime(0), c.memrealtime(0));
        std::thread::sleep(Duration::from_millis(20));
        let (t1, r1) = (c.memtime(0), c.memrealtime(0));
        // At least the 20 ms slept, at each clock's rate; well under a second more.
        let (hz, rt) = (1_630_000_000, REALTIME_HZ);
        assert!(t1 - t0 >= hz / 50 && t1 - t0 < hz, "{t0} {t1}");
        assert!(r1 - r0 >= rt / 50 && r1 - r0 < rt, "{r0} {r1}");
    }

    #[test]
    fn dilated_device_time_runs_faster_and_never_goes_back() {
        let fast = Clock::host(REALTIME_HZ, 10);
        let r0 = fast.memrealtime(0);
        std::thread::sleep(Duration::from_millis(20));
        let r1 = fast.memrealtime(0);
        // 20 ms of host time are at least 200 ms of device time.
        assert!(r1 - r0 >= REALTIME_HZ / 5, "{r0} {r1}");
        // A launch after it starts where it got to, though the host's clock is behind.
        let next = Clock::host(REALTIME_HZ, 1);
        assert!(next.memrealtime(0) >= r1);
    }
}
