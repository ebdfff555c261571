//! S_CBRANCH_I_FORK / S_CBRANCH_G_FORK / S_CBRANCH_JOIN against the pseudo-code of Vega ISA
//! §4.6 (seed 004): which side runs first, the stack entries written to SGPR[CSP*4], CSP, EXEC
//! after each join, and per-lane results of if/else, nested and irreducible flow.
//!
//! Per the pseudo-code the second join continues with the EXEC of the side that ran last, so
//! each program saves EXEC before its fork/join block and restores it after; the programs
//! record EXEC just after the outer join (s[60:61]) before restoring it.

mod exec_common;
use exec_common::{run, run_code};
use gcn_isa::{assemble, Target};
use gcnemu::fault::Fault;
use gcnemu::memory::Memory;
use gcnemu::wave::Wave;

/// Base address the harness loads code at.
const BASE: u64 = 0x1000;

/// Lane ids in v0.
fn lane_ids(w: &mut Wave) {
    w.vgpr[0] = std::array::from_fn(|l| l as u32);
}

/// v1 per lane: `tag(lane)` where `exec` had the lane, `keep` elsewhere.
fn expect_v1(w: &Wave, exec: u64, keep: u32, tag: impl Fn(usize) -> u32) {
    for l in 0..64 {
        let want = if exec >> l & 1 == 1 { tag(l) } else { keep };
        assert_eq!(w.vgpr[1][l], want, "v1 lane {l}");
    }
}

const IF_ELSE: &str = "
s_mov_b64 s[50:51], exec
s_mov_b32 s42, 0
s_cbranch_i_fork s[40:41], pass
v_mov_b32 v1, 2
s_branch join
pass:
v_mov_b32 v1, 1
join:
s_cbranch_join s42
s_mov_b64 s[60:61], exec
s_mov_b64 exec, s[50:51]
v_add_u32 v2, 10, v1
";

/// Byte address of the instruction after the fork (the fail side's first instruction).
fn after_fork(text: &str) -> u64 {
    let a = assemble(text, Target::Gfx906).unwrap();
    let (off, _) = a
        .insts
        .iter()
        .find(|(_, i)| i.info().name.contains("_fork"))
        .unwrap();
    BASE + *off as u64 + 4
}

fn if_else(exec: u64, cond: u64) -> Wave {
    run(IF_ELSE, |w| {
        lane_ids(w);
        w.vgpr[1] = [0x99; 64];
        w.set_exec(exec);
        w.set_pair(40, cond);
    })
    .unwrap()
}

#[test]
fn if_else_runs_the_smaller_pass_side_first() {
    // 48 active lanes; pass = lanes 0-19 (20), fail = 20-47 (28): pass runs first, the fail
    // side is pushed as entry 0 and runs second, so the join leaves EXEC = fail.
    let exec = 0x0000_ffff_ffff_ffff;
    let pass = (1u64 << 20) - 1;
    let w = if_else(exec, pass | 0xff00_0000_0000_0000);
    let chk = |w: &gcnemu::wave::Wave| {
        let fail = exec & !pass;
        expect_v1(w, exec, 0x99, |l| if pass >> l & 1 == 1 { 1 } else { 2 });
        assert_eq!(w.pair(60), fail, "EXEC after the second join");
        assert_eq!(w.exec(), exec);
        assert_eq!(w.csp, 0);
        // Entry 0 = { pc of the fail side, mask_fail }: mask in s[0:1], PC in s[2:3].
        assert_eq!(w.pair(0), fail);
        assert_eq!(w.pair(2), after_fork(IF_ELSE));
        assert_eq!(w.vgpr[2][5], 11);
        assert_eq!(w.vgpr[2][30], 12);
        assert_eq!(w.vgpr[2][50], 0, "inactive lane untouched");
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn if_else_runs_the_smaller_fail_side_first() {
    // pass = 40 lanes, fail = 24: the fail side runs first; the pass side is pushed with the
    // fork's target as its PC.
    let exec = u64::MAX;
    let pass = (1u64 << 40) - 1;
    let w = if_else(exec, pass);
    let chk = |w: &gcnemu::wave::Wave| {
        expect_v1(w, exec, 0x99, |l| if l < 40 { 1 } else { 2 });
        assert_eq!(w.pair(60), pass);
        assert_eq!(w.pair(0), pass);
        let a = assemble(IF_ELSE, Target::Gfx906).unwrap();
        assert_eq!(w.pair(2), BASE + a.labels["pass"] as u64);
        assert_eq!(w.csp, 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn equal_halves_run_pass_first() {
    // bitcount(fail) < bitcount(pass) is false on a tie: EXEC = pass, the fail side pushed.
    let w = if_else(u64::MAX, 0x5555_5555_5555_5555);
    let chk = |w: &gcnemu::wave::Wave| {
        expect_v1(w, u64::MAX, 0x99, |l| if l % 2 == 0 { 1 } else { 2 });
        assert_eq!(w.pair(60), 0xaaaa_aaaa_aaaa_aaaa);
        assert_eq!(w.pair(0), 0xaaaa_aaaa_aaaa_aaaa);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn uniform_conditions_do_not_push() {
    // All active lanes pass: a jump, no stack entry; the join sees CSP == 0 and falls through.
    let exec = 0xffff;
    let w = if_else(exec, 0xffff_ffff);
    let chk = |w: &gcnemu::wave::Wave| {
        expect_v1(w, exec, 0x99, |_| 1);
        assert_eq!((w.csp, w.pair(0), w.pair(2)), (0, 0, 0));
        assert_eq!(w.pair(60), exec);
    };
    chk(&w);
    exec_common::vet(&w, chk);
    // None pass: fall through to the fail side, which branches to the join.
    let w = if_else(exec, 0xffff_0000);
    let chk = |w: &gcnemu::wave::Wave| {
        expect_v1(w, exec, 0x99, |_| 2);
        assert_eq!((w.csp, w.pair(0)), (0, 0));
    };
    chk(&w);
    exec_common::vet(&w, chk);
    // EXEC = 0: mask_pass == exec, so the fork jumps.
    let w = if_else(0, u64::MAX);
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.vgpr[1], [0x99; 64]);
        assert_eq!(w.csp, 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

/// An outer fork whose sides each hold an inner fork/join block. The side that runs first does
/// so at CSP 1 (outer entry on the stack), the other after the outer entry is popped, at CSP 0;
/// so each inner join names its own saved-CSP SGPR (s43 for the pass side, s44 for the fail
/// side), set by the test to the CSP its inner fork starts at.
const NESTED: &str = "
s_mov_b64 s[50:51], exec
s_mov_b32 s42, 0
s_cbranch_i_fork s[40:41], outer_pass
s_cbranch_i_fork s[46:47], of_pass
v_mov_b32 v1, 21
s_branch of_join
of_pass:
v_mov_b32 v1, 20
of_join:
s_cbranch_join s44
s_branch outer_join
outer_pass:
s_cbranch_i_fork s[48:49], op_pass
v_mov_b32 v1, 11
s_branch op_join
op_pass:
v_mov_b32 v1, 10
op_join:
s_cbranch_join s43
outer_join:
s_cbranch_join s42
s_mov_b64 s[60:61], exec
s_mov_b64 exec, s[50:51]
";

fn nested(outer: u64, pass_csp: u32, fail_csp: u32) -> Wave {
    run(NESTED, |w| {
        lane_ids(w);
        w.set_pair(40, outer);
        w.set_pair(48, 0x5555_5555_5555_5555);
        w.set_pair(46, 0x1111_1111_1111_1111);
        w.sgpr[43] = pass_csp;
        w.sgpr[44] = fail_csp;
    })
    .unwrap()
}

#[test]
fn nested_forks_pass_side_first() {
    // Outer: 32/32, pass (lanes 0-31) first at CSP 1, fail (32-63) second at CSP 0.
    let w = nested(0xffff_ffff, 1, 0);
    let chk = |w: &gcnemu::wave::Wave| {
        expect_v1(w, u64::MAX, 0, |l| match (l < 32, l % 2 == 0, l % 4 == 0) {
            (true, true, _) => 10,
            (true, false, _) => 11,
            (false, _, true) => 20,
            (false, _, false) => 21,
        });
        // The outer fail side ran last; in its inner fork pass = lanes % 4 == 0 (8 lanes) ran
        // first and the other 24 last.
        assert_eq!(w.pair(60), 0xeeee_eeee_0000_0000);
        assert_eq!(w.csp, 0);
        assert_eq!(w.exec(), u64::MAX);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn nested_forks_fail_side_first() {
    // Outer pass = lanes 0-47 (48) > fail = 48-63 (16): the fail side first, at CSP 1.
    let w = nested(0xffff_ffff_ffff, 0, 1);
    let chk = |w: &gcnemu::wave::Wave| {
        expect_v1(w, u64::MAX, 0, |l| match (l < 48, l % 2 == 0, l % 4 == 0) {
            (true, true, _) => 10,
            (true, false, _) => 11,
            (false, _, true) => 20,
            (false, _, false) => 21,
        });
        // The outer pass side ran last; inside it 24 even / 24 odd lanes: even first, odd last.
        assert_eq!(w.pair(60), 0x0000_aaaa_aaaa_aaaa);
        assert_eq!(w.csp, 0);
    };
    chk(&w);
    exec_common::vet(&w, chk);
}

#[test]
fn a_wrong_saved_csp_is_a_named_underflow() {
    // Giving the second side's inner join CSP 1 makes it pop once more than was pushed.
    let e = run(NESTED, |w| {
        lane_ids(w);
        w.set_pair(40, 0xffff_ffff);
        w.set_pair(48, 0x5555_5555_5555_5555);
        w.set_pair(46, 0x1111_1111_1111_1111);
        w.sgpr[43] = 1;
        w.sgpr[44] = 7;
    })
    .unwrap_err();
    match e {
        Fault::Guest(m) => assert!(
            m.contains("s_cbranch_join") && m.contains("underflow"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
}

/// An irreducible loop: B -> C -> B with entries at both B (fail side) and C (pass side). Each
/// side runs the divergent loop on its own lanes until their v3 counts reach 0, leaving EXEC 0
/// at the join; both joins run with EXEC 0.
const IRREDUCIBLE: &str = "
s_mov_b64 s[50:51], exec
s_mov_b32 s42, 0
s_cbranch_i_fork s[40:41], c
b:
v_add_u32 v1, 1, v1
c:
v_add_u32 v2, 1, v2
v_subrev_u32 v3, 1, v3
v_cmp_ne_u32 vcc, 0, v3
s_and_b64 exec, exec, vcc
s_cbranch_execnz b
s_cbranch_join s42
s_mov_b64 s[60:61], exec
s_mov_b64 exec, s[50:51]
";

#[test]
fn irreducible_loop_with_two_entries() {
    for cond in [0x0000_0000_ffff_0000u64, 0x0fff_ffff_ffff_ffff] {
        let w = run(IRREDUCIBLE, |w| {
            w.vgpr[3] = std::array::from_fn(|l| (l % 5) as u32 + 1);
            w.set_pair(40, cond);
        })
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            for l in 0..64 {
                let n = (l % 5) as u32 + 1;
                let enters_at_c = cond >> l & 1 == 1;
                assert_eq!(w.vgpr[2][l], n, "C visits, lane {l}");
                assert_eq!(
                    w.vgpr[1][l],
                    if enters_at_c { n - 1 } else { n },
                    "B visits, lane {l}"
                );
                assert_eq!(w.vgpr[3][l], 0);
            }
            assert_eq!(w.pair(60), 0, "the loop exits with no lanes");
            assert_eq!(w.csp, 0);
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn g_fork_takes_its_target_from_sgprs() {
    let text = IF_ELSE.replace(
        "s_cbranch_i_fork s[40:41], pass",
        "s_cbranch_g_fork s[40:41], s[52:53]",
    );
    let text = format!("{text}\ns_endpgm\n");
    let a = assemble(&text, Target::Gfx906).unwrap();
    let pass_addr = BASE + a.labels["pass"] as u64;
    for (cond, first_pass) in [(0xffu64, true), (!0xffu64, false)] {
        exec_common::record::note_asm(Target::Gfx906, &text);
        let w = run_code(Target::Gfx906, &a.bytes, &mut Memory::default(), |w| {
            w.set_exec(u64::MAX);
            w.set_pair(40, cond);
            w.set_pair(52, pass_addr);
        })
        .unwrap();
        let chk = |w: &gcnemu::wave::Wave| {
            expect_v1(w, u64::MAX, 0, |l| if cond >> l & 1 == 1 { 1 } else { 2 });
            let (pushed_mask, pushed_pc) = if first_pass {
                (!cond, after_fork(&text))
            } else {
                (cond, pass_addr)
            };
            assert_eq!((w.pair(0), w.pair(2)), (pushed_mask, pushed_pc));
            assert_eq!(w.pair(60), pushed_mask);
        };
        chk(&w);
        exec_common::vet(&w, chk);
    }
}

#[test]
fn g_fork_to_a_non_instruction_is_a_bad_jump() {
    let e = run("s_cbranch_g_fork s[40:41], s[52:53]\ns_nop 0", |w| {
        w.set_pair(40, 1);
        w.set_pair(52, BASE + 0x100);
    })
    .unwrap_err();
    assert_eq!(e, Fault::BadJump { addr: BASE + 0x100 });
}

#[test]
fn nesting_to_the_limit_then_a_named_overflow() {
    // Each fork splits the active lanes in half (pass = the lower half, ties run pass first),
    // pushing one entry; six forks reach one lane and fill the stack: entry k at s[4k:4k+3].
    // A seventh fork after widening EXEC again has no room.
    let mut text = String::new();
    for k in 0..6 {
        text += &format!(
            "s_cbranch_i_fork s[{}:{}], f{k}\nf{k}:\n",
            40 + 2 * k,
            41 + 2 * k
        );
    }
    let w = run(&text, |w| {
        for k in 0..6 {
            let half = 64 >> (k + 1);
            w.set_pair(40 + 2 * k as u16, (1u64 << half) - 1);
        }
    })
    .unwrap();
    let chk = |w: &gcnemu::wave::Wave| {
        assert_eq!(w.csp, 6);
        assert_eq!(w.exec(), 1);
        for k in 0..6 {
            let width = 64 >> k;
            let half = width / 2;
            let active = if width == 64 {
                u64::MAX
            } else {
                (1u64 << width) - 1
            };
            let fail = active & !((1u64 << half) - 1);
            assert_eq!(w.pair(4 * k as u16), fail, "entry {k} mask");
        }
    };
    chk(&w);
    exec_common::vet(&w, chk);
    let e = run(
        &format!("{text}s_mov_b64 exec, -1\ns_cbranch_i_fork s[40:41], end\nend:"),
        |w| {
            for k in 0..6 {
                let half = 64 >> (k + 1);
                w.set_pair(40 + 2 * k as u16, (1u64 << half) - 1);
            }
        },
    )
    .unwrap_err();
    match e {
        Fault::Guest(m) => assert!(
            m.contains("s_cbranch_i_fork") && m.contains("overflow"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
}
