//! The model's behaviour on hand-made parameters (round figures, so the expected cycles can be
//! worked out by hand): coalescing, hits and misses per level, channel and bandwidth queues.

use super::params::{Dram, Level, Params, Scalar, L2};
use super::*;

/// L1 100, scalar 50, L2 200, memory 500 cycles; 64 GB/s, which at the tests' 1 GHz is one
/// 64-byte line per cycle.
fn params() -> Params {
    Params {
        board: "test".into(),
        l1: Level {
            bytes: 16 << 10,
            line: 64,
            ways: 4,
            latency_cycles: 100,
            gb_per_s: None,
            source: "§test".into(),
        },
        scalar: Scalar {
            bytes: 16 << 10,
            line: 64,
            ways: 4,
            latency_cycles: 50,
            cus: 4,
            source: "§test".into(),
        },
        l2: L2 {
            bytes: 1 << 20,
            line: 64,
            ways: 16,
            channels: 16,
            interleave: 256,
            latency_cycles: 200,
            instances: 1,
            source: "§test".into(),
        },
        mall: None,
        dram: Dram {
            latency_cycles: 500,
            gb_per_s: 64.0,
            source: "§test".into(),
            channels: 1,
            // No refresh within the tests' few thousand cycles, and no turnaround: the queue
            // is the peak bandwidth (the channel model has its own tests).
            refresh_ns: 0.0,
            refresh_interval_ns: 1e9,
            read_to_write_ns: 0.0,
            write_to_read_ns: 0.0,
            write_queue: 1,
            timing_source: "§test".into(),
        },
    }
}

fn system() -> MemorySystem {
    MemorySystem::new(&params(), 4, 1_000_000)
}

fn lanes(base: u64, stride_bytes: u64) -> Vec<(usize, u64)> {
    (0..64)
        .map(|l| (l, base + l as u64 * stride_bytes))
        .collect()
}

fn load(m: &mut MemorySystem, at: u64, lanes: &[(usize, u64)]) -> u64 {
    m.vector(&VectorRequest {
        cu: 0,
        at,
        access: Access::Load,
        lanes: Lanes::Each(lanes),
        bytes: 4,
        glc: false,
    })
}

#[test]
fn a_cold_unit_stride_load_reads_four_lines_from_memory() {
    let mut m = system();
    let done = load(&mut m, 0, &lanes(0, 4));
    // Four lines sent on cycles 0..3, through four channels, memory takes one per cycle: the
    // last one's turn is cycle 3.
    assert_eq!(done, 3 + 500);
    assert_eq!(m.counters().tcc_ea_rdreq, 4);
    assert_eq!(m.counters().tcp_total_cache_accesses, 4);
}

#[test]
fn the_second_load_of_the_same_lines_hits_the_l1() {
    let mut m = system();
    let first = load(&mut m, 0, &lanes(0, 4));
    let second = load(&mut m, first, &lanes(0, 4));
    assert_eq!(second - first, 3 + 100);
    assert_eq!(m.counters().tcp_hits, 4);
}

#[test]
fn glc_loads_skip_the_l1_and_hit_the_l2() {
    let mut m = system();
    let a = lanes(0, 4);
    let first = load(&mut m, 0, &a);
    let r = VectorRequest {
        cu: 0,
        at: first,
        access: Access::Load,
        lanes: Lanes::Each(&a),
        bytes: 4,
        glc: true,
    };
    assert_eq!(m.vector(&r) - first, 3 + 200);
    assert_eq!(m.counters().tcc_hit, 4);
}

#[test]
fn strided_loads_take_longer_as_they_touch_more_lines() {
    let mut times = Vec::new();
    for stride in [1u64, 2, 4, 8, 16] {
        let mut m = system();
        // 16 wave-instructions one after another over a fresh memory system.
        let mut t = 0;
        for w in 0..16u64 {
            t = t.max(load(&mut m, w, &lanes(w * 64 * 4 * stride, 4 * stride)));
        }
        times.push((stride, t, m.counters().tcc_ea_rdreq));
    }
    for pair in times.windows(2) {
        assert!(pair[1].1 > pair[0].1, "{times:?}");
        assert!(pair[1].2 >= pair[0].2, "{times:?}");
    }
    // Stride 16: a line per lane, 64 per instruction.
    assert_eq!(times[4].2, 16 * 64);
}

#[test]
fn memory_bandwidth_bounds_a_stream_of_misses() {
    // 64 bytes per cycle: 10,000 distinct lines need at least 10,000 cycles of memory time.
    let mut m = system();
    let mut done = 0;
    for i in 0..2500u64 {
        done = done.max(load(&mut m, i / 4, &lanes(i * 256, 4)));
    }
    assert_eq!(m.counters().tcc_ea_rdreq, 10_000);
    assert!((10_000..10_000 + 500 + 100).contains(&done), "{done}");
}

#[test]
fn a_footprint_larger_than_the_l2_goes_back_to_memory() {
    let mut m = system();
    let lines_in = |m: &mut MemorySystem, bytes: u64| {
        let before = m.counters().tcc_ea_rdreq;
        for pass in 0..2 {
            let mut a = 0;
            while a < bytes {
                let l = [(0usize, a + (1 << 30))];
                m.vector(&VectorRequest {
                    cu: pass % 4,
                    at: 0,
                    access: Access::Load,
                    lanes: Lanes::Each(&l),
                    bytes: 4,
                    glc: true,
                });
                a += 64;
            }
        }
        m.counters().tcc_ea_rdreq - before
    };
    // Half the L2: only the first pass reads memory. Twice the L2: both passes do.
    assert_eq!(lines_in(&mut m, 512 << 10), (512 << 10) / 64);
    let mut m = system();
    assert_eq!(lines_in(&mut m, 2 << 20), 2 * (2 << 20) / 64);
}

/// The footprint test with an Infinity Cache of 4 MiB (MI300's is 256 MiB) at 300 cycles: a
/// footprint the L2 cannot hold but the MALL can comes back from the MALL on the second pass,
/// at its latency, and memory is read only on the first.
#[test]
fn a_footprint_beyond_the_l2_but_within_the_mall_is_read_from_the_mall() {
    let mut p = params();
    p.mall = Some(Level {
        bytes: 4 << 20,
        line: 64,
        ways: 16,
        latency_cycles: 300,
        gb_per_s: Some(1e6),
        source: "§test".into(),
    });
    let mut m = MemorySystem::new(&p, 4, 1_000_000);
    let footprint: u64 = 2 << 20;
    let mut last = [0u64; 2];
    for (pass, last) in last.iter_mut().enumerate() {
        let mut a = 0;
        while a < footprint {
            let l = [(0usize, a + (1 << 30))];
            *last = m.vector(&VectorRequest {
                cu: 0,
                at: 1_000_000 * pass as u64,
                access: Access::Load,
                lanes: Lanes::Each(&l),
                bytes: 4,
                glc: true,
            }) - 1_000_000 * pass as u64;
            a += 64;
        }
    }
    let c = m.counters();
    assert_eq!(
        c.tcc_ea_rdreq,
        2 * footprint / 64,
        "the 1 MiB L2 misses both passes"
    );
    assert_eq!((c.mall_miss, c.mall_hit), (footprint / 64, footprint / 64));
    assert_eq!(c.dram_bytes, footprint, "memory reads each line once");
    // The second pass's last line queued behind the others on its L2 channel, then took the
    // MALL's latency, not memory's.
    assert!(last[1] >= 300 && last[1] < last[0], "{last:?}");
}

#[test]
fn atomics_to_one_address_from_many_cus_queue_on_one_channel() {
    // 16 CUs each add to the same address with all 64 lanes, or each to their own 64 dwords.
    // The second of two rounds is timed, so the lines are in the L2.
    let time = |same: bool| {
        let mut m = MemorySystem::new(&params(), 16, 1_000_000);
        let mut done = 0;
        for round in 0..2 {
            let at = round * 10_000;
            for cu in 0..16usize {
                let base = if same {
                    0x100
                } else {
                    0x10000 + cu as u64 * 256
                };
                let l: Vec<(usize, u64)> = (0..64)
                    .map(|i| (i, if same { base } else { base + i as u64 * 4 }))
                    .collect();
                let r = VectorRequest {
                    cu,
                    at,
                    access: Access::Atomic,
                    lanes: Lanes::Each(&l),
                    bytes: 4,
                    glc: true,
                };
                let t = m.vector(&r) - at;
                if round == 1 {
                    done = done.max(t);
                }
            }
        }
        done
    };
    let (one, spread) = (time(true), time(false));
    // One address: 16 instructions of 64 lane operations each, one after another on one channel.
    assert_eq!(one, 16 * 64 - 1 + 200);
    // Each CU's 64 dwords lie in its own channel: 4 lines of 16 lane operations.
    assert_eq!(spread, 3 * 16 + 15 + 200);
}

#[test]
fn stores_do_not_allocate_in_the_l1_and_dirty_lines_are_written_back() {
    let mut m = system();
    let a = lanes(0, 4);
    m.vector(&VectorRequest {
        cu: 0,
        at: 0,
        access: Access::Store,
        lanes: Lanes::Each(&a),
        bytes: 4,
        glc: false,
    });
    assert_eq!(m.counters().tcc_ea_rdreq, 0);
    // A load of the stored lines misses the L1 and hits the L2.
    load(&mut m, 1000, &a);
    assert_eq!((m.counters().tcp_hits, m.counters().tcc_hit), (0, 4));
    // Evict them with 2 MiB of other lines read through the same slices.
    for i in 0..(2u64 << 20) / 64 {
        let l = [(0usize, (1 << 30) + i * 64)];
        m.vector(&VectorRequest {
            cu: 1,
            at: 2000,
            access: Access::Load,
            lanes: Lanes::Each(&l),
            bytes: 4,
            glc: true,
        });
    }
    assert_eq!(m.counters().tcc_ea_wrreq, 4);
}

#[test]
fn scalar_loads_share_a_cache_among_a_cu_group() {
    let mut m = system();
    let first = m.scalar(0, 0, 0x4000, 16);
    assert_eq!(first, 500);
    // CU 3 shares CU 0's scalar cache (4 per group).
    assert_eq!(m.scalar(3, 1000, 0x4000, 16), 1050);
    assert_eq!(m.counters().scalar_hits, 1);
}

/// A scalar load at the top of the address space (it faults when it runs) reads the last line.
#[test]
fn a_scalar_load_at_the_top_of_the_address_space_reads_the_last_line() {
    let mut m = system();
    assert_eq!(m.scalar(0, 0, u64::MAX - 3, 16), 500);
    assert_eq!(m.counters().scalar_accesses, 1);
}

/// The latency ladder on a real board's parameters: one lane follows a random cycle through a
/// footprint (as `tests/fixtures/microbench/latency.hip` does), each load issued when the last
/// one is back; the time per load is each level's latency in turn.
#[test]
fn a_pointer_chase_on_vega_64_steps_through_l1_l2_and_memory() {
    let (p, per_load) = chase(gcn_isa::Target::Gfx900);
    assert_eq!(per_load(8 << 10), p.l1.latency_cycles as u64);
    assert_eq!(per_load(1 << 20), p.l2.latency_cycles as u64);
    // Memory: its latency, and now and then a wait for a channel's refresh (260 of every
    // 3,900 ns, about 15 cycles on average for a load that arrives at a random time).
    let memory = per_load(16 << 20);
    let latency = p.dram.latency_cycles as u64;
    assert!((latency..latency + 30).contains(&memory), "{memory}");
}

/// On MI300X, a footprint past a CU's 4 MiB L2 (its XCD's) comes from the Infinity Cache until
/// it passes the 256 MiB of that too.
#[test]
fn a_pointer_chase_on_mi300x_reaches_the_infinity_cache() {
    let (p, per_load) = chase(gcn_isa::Target::Gfx942);
    let mall = p.mall.as_ref().expect("MI300X has a MALL").latency_cycles as u64;
    assert_eq!(per_load(1 << 20), p.l2.latency_cycles as u64);
    // (Plus the two cycles its slice takes to send the L2 line's two 64 B halves.)
    let from_mall = per_load(16 << 20);
    assert!((mall..mall + 4).contains(&from_mall), "{from_mall}");
    let memory = per_load(512 << 20);
    let latency = p.dram.latency_cycles as u64;
    assert!((latency..latency + 60).contains(&memory), "{memory}");
}

/// A board's parameters, and the cycles per load of one lane's dependent chase through a
/// footprint of bytes, walked whole once first (as the latency microbenchmark does).
fn chase(target: gcn_isa::Target) -> (&'static Params, impl Fn(u64) -> u64) {
    let p = params::params(target).expect("the board has a row");
    let b = crate::board::board(target);
    let per_load = move |footprint: u64| {
        let mut m = MemorySystem::new(p, b.compute_units as usize, b.clock_khz);
        // One load per L2 line, so that no load finds its line brought in by another.
        let line = p.l2.line as u64;
        let lines = footprint / line;
        // A fixed pseudo-random cycle over the lines (an LCG's full period over a power of two).
        let next = |i: u64| (i * 5 + 1) % lines;
        let (mut at, mut i) = (0u64, 0u64);
        for _ in 0..lines {
            at = load(&mut m, at, &[(0, i * line)]);
            i = next(i);
        }
        let start = at;
        let steps = 4096;
        for _ in 0..steps {
            at = load(&mut m, at, &[(0, i * line)]);
            i = next(i);
        }
        (at - start) / steps
    };
    (p, per_load)
}

#[test]
fn a_new_launch_keeps_the_l2_lines_but_not_the_queues() {
    let mut m = system();
    let a = lanes(0, 4);
    // A burst that leaves the memory queue busy far ahead of cycle 0.
    for i in 0..1000u64 {
        load(&mut m, 0, &lanes((1 << 30) + i * 256, 4));
    }
    load(&mut m, 0, &a);
    m.shared.new_launch(1_000_000);
    m.cus.iter_mut().for_each(CuMemory::new_launch);
    // The next launch counts from 0: its load of the same lines hits the L2 at once.
    assert_eq!(load(&mut m, 0, &a), 3 + 200);
}

/// A row and the list of its lanes cost the same and count the same, for loads, stores and
/// atomics, cold and warm, aligned or not.
#[test]
fn a_row_costs_what_its_lanes_cost() {
    for (access, bytes, lane0) in [
        (Access::Load, 4, 0x1000),
        (Access::Load, 16, 0x1004),
        (Access::Store, 4, 0x2002),
        (Access::Atomic, 4, 0x3000),
        (Access::Atomic, 8, 0x3010),
    ] {
        let exec = u64::MAX << 3 >> 1;
        let row = Row::of(exec, lane0, bytes).expect("a row");
        let listed: Vec<(usize, u64)> = row.lanes(bytes).collect();
        let (mut a, mut b) = (system(), system());
        for at in [0, 5_000] {
            let req = |lanes| VectorRequest {
                cu: 0,
                at,
                access,
                lanes,
                bytes,
                glc: false,
            };
            let want = a.vector(&req(Lanes::Each(&listed)));
            assert_eq!(b.vector(&req(Lanes::Row(row))), want, "{access:?} {bytes}");
        }
        assert_eq!(a.counters(), b.counters());
    }
}
