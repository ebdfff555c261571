//! The device's part played by hand, as ockl's `hostcall_impl.cl` and `services.cl` do it.

use super::printf::tests::{message_words, pack_str, T};
use super::*;

type B = HostcallBuffer;

/// `pop` from a stack (single-threaded, so the CAS always succeeds).
fn pop(mem: &mut Memory, buf: u64, stack: u64) -> u64 {
    let top = mem.read_u64(buf + stack).unwrap();
    assert_ne!(top, 0, "stack {stack} is empty");
    let mask = mem.read_u64(buf + B::INDEX_MASK).unwrap();
    let headers = mem.read_u64(buf + B::HEADERS).unwrap();
    let next = mem
        .read_u64(headers + (top & mask) * B::HEADER_SIZE + B::HEADER_NEXT)
        .unwrap();
    mem.write_u64(buf + stack, next).unwrap();
    top
}

fn push(mem: &mut Memory, buf: u64, stack: u64, ptr: u64) {
    let top = mem.read_u64(buf + stack).unwrap();
    let mask = mem.read_u64(buf + B::INDEX_MASK).unwrap();
    let headers = mem.read_u64(buf + B::HEADERS).unwrap();
    mem.write_u64(
        headers + (ptr & mask) * B::HEADER_SIZE + B::HEADER_NEXT,
        top,
    )
    .unwrap();
    mem.write_u64(buf + stack, ptr).unwrap();
}

fn header(mem: &Memory, buf: u64, ptr: u64) -> u64 {
    let mask = mem.read_u64(buf + B::INDEX_MASK).unwrap();
    mem.read_u64(buf + B::HEADERS).unwrap() + (ptr & mask) * B::HEADER_SIZE
}

fn slot(mem: &Memory, buf: u64, ptr: u64, lane: u32) -> u64 {
    let mask = mem.read_u64(buf + B::INDEX_MASK).unwrap();
    mem.read_u64(buf + B::PAYLOADS).unwrap()
        + (ptr & mask) * B::PAYLOAD_SIZE
        + lane as u64 * B::SLOT_SIZE
}

/// A wave's packet from `pop_free_stack` to `push_ready_stack` (with `send_signal`).
fn submit(mem: &mut Memory, buf: u64, service: u32, lanes: &[(u32, [u64; 8])]) -> u64 {
    let ptr = pop(mem, buf, B::FREE_STACK);
    let h = header(mem, buf, ptr);
    let active = lanes.iter().fold(0u64, |m, &(l, _)| m | 1 << l);
    mem.write_u32(h + B::HEADER_SERVICE, service).unwrap();
    mem.write_u64(h + B::HEADER_ACTIVEMASK, active).unwrap();
    mem.write_u32(h + B::HEADER_CONTROL, 1).unwrap();
    for &(lane, args) in lanes {
        let s = slot(mem, buf, ptr, lane);
        for (i, a) in args.iter().enumerate() {
            mem.write_u64(s + 8 * i as u64, *a).unwrap();
        }
    }
    push(mem, buf, B::READY_STACK, ptr);
    // __ockl_hsa_signal_add(doorbell, 1) and update_mbox.
    let signal = mem.read_u64(buf + B::DOORBELL).unwrap();
    let v = mem.read_u64(signal + B::SIGNAL_VALUE).unwrap();
    mem.write_u64(signal + B::SIGNAL_VALUE, v + 1).unwrap();
    let mailbox = mem.read_u64(signal + B::SIGNAL_MAILBOX_PTR).unwrap();
    assert_ne!(mailbox, 0);
    let id = mem.read_u32(signal + B::SIGNAL_EVENT_ID).unwrap();
    mem.write_u64(mailbox, id as u64).unwrap();
    ptr
}

/// `get_return_value` (the READY flag must be clear) and `return_free_packet`.
fn finish(mem: &mut Memory, buf: u64, ptr: u64, lanes: &[u32]) -> Vec<[u64; 2]> {
    let h = header(mem, buf, ptr);
    assert_eq!(
        mem.read_u32(h + B::HEADER_CONTROL).unwrap() & 1,
        0,
        "still READY"
    );
    let ret = lanes
        .iter()
        .map(|&l| {
            let s = slot(mem, buf, ptr, l);
            [mem.read_u64(s).unwrap(), mem.read_u64(s + 8).unwrap()]
        })
        .collect();
    let mask = mem.read_u64(buf + B::INDEX_MASK).unwrap();
    let mut tagged = ptr.wrapping_add(mask + 1);
    if tagged == 0 {
        tagged = mask + 1;
    }
    push(mem, buf, B::FREE_STACK, tagged);
    ret
}

/// A whole `__ockl_hostcall_internal` call, with the host answering in between.
fn hostcall(
    mem: &mut Memory,
    sv: &mut Services,
    buf: u64,
    service: u32,
    lanes: &[(u32, [u64; 8])],
    out: &mut Vec<u8>,
) -> Vec<[u64; 2]> {
    let ptr = submit(mem, buf, service, lanes);
    assert_eq!(sv.service(mem, buf, out).unwrap(), 1);
    assert_eq!(mem.read_u64(buf + B::READY_STACK).unwrap(), 0);
    finish(
        mem,
        buf,
        ptr,
        &lanes.iter().map(|l| l.0).collect::<Vec<_>>(),
    )
}

fn free_count(mem: &Memory, buf: u64) -> u32 {
    let mut n = 0;
    let mut p = mem.read_u64(buf + B::FREE_STACK).unwrap();
    while p != 0 {
        n += 1;
        assert!(n <= 64, "free stack loops");
        p = mem.read_u64(header(mem, buf, p) + B::HEADER_NEXT).unwrap();
    }
    n
}

/// One wave's printf as hipcc emits it: `__ockl_printf_begin`, the format string with
/// `__ockl_printf_append_string_n`, then each argument with `__ockl_printf_append_args`
/// (strings with `append_string_n`), the last call with is_last. Each lane has its own
/// arguments; lanes whose strings are shorter leave the string loop earlier, as the
/// divergent device loop does. Returns each lane's printf result.
fn device_printf(
    mem: &mut Memory,
    sv: &mut Services,
    buf: u64,
    fmt: &str,
    lanes: &[(u32, Vec<T>)],
    out: &mut Vec<u8>,
) -> Vec<u64> {
    let ids: Vec<u32> = lanes.iter().map(|l| l.0).collect();
    // begin: one arg, the control word 0 (stdout).
    let begin: Vec<_> = ids
        .iter()
        .map(|&l| (l, [33, 0, 0, 0, 0, 0, 0, 0]))
        .collect();
    let mut desc: Vec<u64> = hostcall(mem, sv, buf, SERVICE_PRINTF, &begin, out)
        .iter()
        .map(|r| r[0])
        .collect();
    let nargs = lanes[0].1.len();
    let fmt_words = {
        let mut w = Vec::new();
        pack_str(fmt.as_bytes(), &mut w);
        w
    };
    let strings: Vec<Vec<u64>> = ids.iter().map(|_| fmt_words.clone()).collect();
    append_strings(mem, sv, buf, &ids, &mut desc, &strings, nargs == 0, out);
    for a in 0..nargs {
        let last = a + 1 == nargs;
        if let T::S(_) = lanes[0].1[a] {
            let strings: Vec<Vec<u64>> = lanes
                .iter()
                .map(|(_, args)| {
                    let T::S(s) = args[a] else { panic!() };
                    let mut w = Vec::new();
                    pack_str(s.as_bytes(), &mut w);
                    w
                })
                .collect();
            append_strings(mem, sv, buf, &ids, &mut desc, &strings, last, out);
        } else {
            let slots: Vec<_> = lanes
                .iter()
                .zip(&desc)
                .map(|((l, args), d)| {
                    let w = message_words("", &args[a..a + 1])[1];
                    let d = (d & !0xe0) | 1 << 5 | if last { 2 } else { 0 };
                    (*l, [d, w, 0, 0, 0, 0, 0, 0])
                })
                .collect();
            desc = hostcall(mem, sv, buf, SERVICE_PRINTF, &slots, out)
                .iter()
                .map(|r| r[0])
                .collect();
        }
    }
    desc
}

/// `message_append_bytes` for every lane: up to 7 words a packet, END on the last packet of
/// each lane when `last`.
#[allow(clippy::too_many_arguments)]
fn append_strings(
    mem: &mut Memory,
    sv: &mut Services,
    buf: u64,
    ids: &[u32],
    desc: &mut [u64],
    strings: &[Vec<u64>],
    last: bool,
    out: &mut Vec<u8>,
) {
    let mut at = 0;
    loop {
        let active: Vec<usize> = (0..ids.len()).filter(|&i| strings[i].len() > at).collect();
        if active.is_empty() {
            return;
        }
        let slots: Vec<_> = active
            .iter()
            .map(|&i| {
                let chunk = &strings[i][at..strings[i].len().min(at + 7)];
                let final_packet = at + 7 >= strings[i].len();
                let mut s = [0u64; 8];
                s[0] = (desc[i] & !0xe2)
                    | (chunk.len() as u64) << 5
                    | if final_packet && last { 2 } else { 0 };
                s[1..1 + chunk.len()].copy_from_slice(chunk);
                (ids[i], s)
            })
            .collect();
        let ret = hostcall(mem, sv, buf, SERVICE_PRINTF, &slots, out);
        for (&i, r) in active.iter().zip(ret) {
            desc[i] = r[0];
        }
        at += 7;
    }
}

#[test]
fn create_initialises_the_free_stack_and_signal() {
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 3).unwrap();
    assert_eq!(mem.read_u64(buf + B::INDEX_MASK).unwrap(), 3);
    assert_eq!(mem.read_u64(buf + B::READY_STACK).unwrap(), 0);
    // Packets 2, 1, 0 (tag 1) from the top.
    assert_eq!(pop(&mut mem, buf, B::FREE_STACK), 2);
    assert_eq!(pop(&mut mem, buf, B::FREE_STACK), 1);
    assert_eq!(pop(&mut mem, buf, B::FREE_STACK), 4);
    assert_eq!(mem.read_u64(buf + B::FREE_STACK).unwrap(), 0);
    let signal = mem.read_u64(buf + B::DOORBELL).unwrap();
    assert_eq!(mem.read_u64(signal).unwrap(), 1, "user signal");
    assert_eq!(mem.read_u64(signal + 8).unwrap(), 1, "SIGNAL_INIT");
    assert_eq!(mem.read_u64(signal + 16).unwrap(), buf + B::MAILBOX);
    // Payloads lie inside the allocation.
    let payloads = mem.read_u64(buf + B::PAYLOADS).unwrap();
    mem.read_u64(payloads + 3 * B::PAYLOAD_SIZE - 8).unwrap();
    // Nothing ready: nothing to do.
    let mut sv = Services::new();
    assert_eq!(sv.service(&mut mem, buf, &mut Vec::new()), Ok(0));
}

#[test]
fn printf_from_several_lanes() {
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 4).unwrap();
    let mut sv = Services::new();
    let mut out = Vec::new();
    let fmt = "lane %d of %s: x=%5.2f h=%#x c=%c %s|%%\n";
    let names = [
        "a wave with a long name, longer than fifty-six bytes in all",
        "w",
    ];
    let lanes: Vec<(u32, Vec<T>)> = [0u32, 5, 63]
        .iter()
        .enumerate()
        .map(|(i, &l)| {
            (
                l,
                vec![
                    T::I(l as i32),
                    T::S(names[i % 2]),
                    T::D(l as f64 / 3.0),
                    T::I(l as i32 * 255),
                    T::I(b'A' as i32 + i as i32),
                    T::S(if i == 1 { "" } else { "tail" }),
                ],
            )
        })
        .collect();
    let ret = device_printf(&mut mem, &mut sv, buf, fmt, &lanes, &mut out);
    let expected = [
        "lane 0 of a wave with a long name, longer than fifty-six bytes in all: x= 0.00 h=0 c=A tail|%\n",
        "lane 5 of w: x= 1.67 h=0x4fb c=B |%\n",
        "lane 63 of a wave with a long name, longer than fifty-six bytes in all: x=21.00 h=0x3ec1 c=C tail|%\n",
    ];
    assert_eq!(String::from_utf8(out).unwrap(), expected.concat());
    let lens: Vec<u64> = expected.iter().map(|e| e.len() as u64).collect();
    assert_eq!(ret, lens, "printf returns the bytes written");
    assert_eq!(sv.open_messages(), 0);
    assert_eq!(free_count(&mem, buf), 4);
}

#[test]
fn printf_without_arguments_and_message_ids_are_reused() {
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 2).unwrap();
    let mut sv = Services::new();
    let mut out = Vec::new();
    for _ in 0..3 {
        let r = device_printf(&mut mem, &mut sv, buf, "hi\n", &[(7, vec![])], &mut out);
        assert_eq!(r, vec![3]);
    }
    assert_eq!(out, b"hi\nhi\nhi\n");
    assert_eq!(sv.messages.slots.len(), 1);
    assert_eq!(free_count(&mem, buf), 2);
}

#[test]
fn packets_are_served_in_push_order() {
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 4).unwrap();
    let mut sv = Services::new();
    let mut out = Vec::new();
    // Two waves begin their messages.
    let begin = [(0, [33, 0, 0, 0, 0, 0, 0, 0])];
    let a = hostcall(&mut mem, &mut sv, buf, SERVICE_PRINTF, &begin, &mut out)[0][0];
    let b = hostcall(&mut mem, &mut sv, buf, SERVICE_PRINTF, &begin, &mut out)[0][0];
    assert_ne!(a >> 8, b >> 8, "distinct message ids");
    assert_eq!(a & 0xff, 32, "BEGIN cleared, length kept");
    // Both push their whole format string with END before the host looks.
    let mut words_b = Vec::new();
    pack_str(b"second\n", &mut words_b);
    let mut words_a = Vec::new();
    pack_str(b"first\n", &mut words_a);
    let pb = submit(
        &mut mem,
        buf,
        SERVICE_PRINTF,
        &[(0, [(b & !0xe0) | 1 << 5 | 2, words_b[0], 0, 0, 0, 0, 0, 0])],
    );
    let pa = submit(
        &mut mem,
        buf,
        SERVICE_PRINTF,
        &[(0, [(a & !0xe0) | 1 << 5 | 2, words_a[0], 0, 0, 0, 0, 0, 0])],
    );
    assert_eq!(sv.service(&mut mem, buf, &mut out), Ok(2));
    assert_eq!(out, b"second\nfirst\n");
    assert_eq!(finish(&mut mem, buf, pa, &[0]), vec![[6, words_a[0]]]);
    assert_eq!(finish(&mut mem, buf, pb, &[0]), vec![[7, words_b[0]]]);
    assert_eq!(free_count(&mem, buf), 4);
}

#[test]
fn fprintf_stderr_goes_to_its_own_stream() {
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 2).unwrap();
    let mut sv = Services::new();
    let mut words = Vec::new();
    pack_str(b"oops\n", &mut words);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let p = submit(
        &mut mem,
        buf,
        SERVICE_PRINTF,
        &[(3, [33, 1, 0, 0, 0, 0, 0, 0])],
    );
    sv.service_split(&mut mem, buf, &mut out, Some(&mut err))
        .unwrap();
    let d = finish(&mut mem, buf, p, &[3])[0][0];
    let p = submit(
        &mut mem,
        buf,
        SERVICE_PRINTF,
        &[(3, [(d & !0xe0) | 1 << 5 | 2, words[0], 0, 0, 0, 0, 0, 0])],
    );
    sv.service_split(&mut mem, buf, &mut out, Some(&mut err))
        .unwrap();
    assert_eq!(finish(&mut mem, buf, p, &[3])[0][0], 5);
    assert_eq!((out.as_slice(), err.as_slice()), (&b""[..], &b"oops\n"[..]));
    // A control word with unknown bits: printf fails with -1 and prints nothing.
    let mut out = Vec::new();
    let p = submit(
        &mut mem,
        buf,
        SERVICE_PRINTF,
        &[(3, [33 | 2, 8, 0, 0, 0, 0, 0, 0])],
    );
    sv.service(&mut mem, buf, &mut out).unwrap();
    assert_eq!(finish(&mut mem, buf, p, &[3])[0][0], u64::MAX);
    assert!(out.is_empty());
}

#[test]
fn devmem_malloc_and_free() {
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 2).unwrap();
    let mut sv = Services::new();
    let mut out = Vec::new();
    // A slab for one lane, a large block for another (__ockl_devmem_request(0, size)).
    let r = hostcall(
        &mut mem,
        &mut sv,
        buf,
        SERVICE_DEVMEM,
        &[
            (1, [0, 2 << 20, 0, 0, 0, 0, 0, 0]),
            (2, [0, 10000, 0, 0, 0, 0, 0, 0]),
        ],
        &mut out,
    );
    let (slab, big) = (r[0][0], r[1][0]);
    assert_eq!(slab % (2 << 20), 0);
    assert_eq!(big % 4096, 0);
    assert_eq!((r[0][1], r[1][1]), (2 << 20, 10000), "word 1 left alone");
    mem.write_u64(slab + (2 << 20) - 8, 1).unwrap();
    mem.write_u64(big + 10000 - 8, 1).unwrap();
    assert_eq!(sv.heap().len(), 2);
    // An impossible size gives null.
    let r = hostcall(
        &mut mem,
        &mut sv,
        buf,
        SERVICE_DEVMEM,
        &[(0, [0, 1 << 62, 0, 0, 0, 0, 0, 0])],
        &mut out,
    );
    assert_eq!(r[0][0], 0);
    // __ockl_devmem_request(addr, 0) frees.
    hostcall(
        &mut mem,
        &mut sv,
        buf,
        SERVICE_DEVMEM,
        &[
            (1, [slab, 0, 0, 0, 0, 0, 0, 0]),
            (2, [big, 0, 0, 0, 0, 0, 0, 0]),
        ],
        &mut out,
    );
    assert!(sv.heap().is_empty());
    assert!(mem.read_u64(slab).is_err());
    assert!(out.is_empty());
    assert_eq!(free_count(&mem, buf), 2);
    let used = mem.used();
    sv.release_heap(&mut mem);
    assert_eq!(mem.used(), used);
}

fn expect_err(mem: &mut Memory, sv: &mut Services, buf: u64, needles: &[&str]) {
    let e = sv.service(mem, buf, &mut Vec::new()).unwrap_err();
    for n in needles {
        assert!(e.contains(n), "{e:?} lacks {n:?}");
    }
}

#[test]
fn unknown_and_unsupported_services() {
    for (service, what) in [
        (9, "no such"),
        (0, "no such"),
        (1, "function"),
        (4, "Sanitizer"),
    ] {
        let mut mem = Memory::default();
        let buf = B::create(&mut mem, 2).unwrap();
        let mut sv = Services::new();
        let p = submit(&mut mem, buf, service, &[(0, [0; 8])]);
        let needle = format!("service {service}");
        expect_err(
            &mut mem,
            &mut sv,
            buf,
            &[&needle, &format!("packet {}", p & 1), what],
        );
    }
}

#[test]
fn malformed_packets() {
    // A continuation of a message that was never begun.
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 2).unwrap();
    let mut sv = Services::new();
    submit(
        &mut mem,
        buf,
        SERVICE_PRINTF,
        &[(4, [5 << 8 | 1 << 5 | 2, 0, 0, 0, 0, 0, 0, 0])],
    );
    expect_err(
        &mut mem,
        &mut sv,
        buf,
        &["message 5 is not open", "lane 4", "packet 1", "service 2"],
    );

    // A message ended twice.
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 2).unwrap();
    let mut sv = Services::new();
    let mut out = Vec::new();
    let begin_and_end = [(0, [33 | 2, 0, 0, 0, 0, 0, 0, 0])];
    let d = hostcall(
        &mut mem,
        &mut sv,
        buf,
        SERVICE_PRINTF,
        &begin_and_end,
        &mut out,
    );
    assert_eq!(d[0][0], 0, "an empty printf prints nothing");
    submit(
        &mut mem,
        buf,
        SERVICE_PRINTF,
        &[(0, [1 << 5 | 2, 0, 0, 0, 0, 0, 0, 0])],
    );
    expect_err(&mut mem, &mut sv, buf, &["message 0 is not open"]);

    // Freeing what the device heap never handed out.
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 2).unwrap();
    let mut sv = Services::new();
    submit(
        &mut mem,
        buf,
        SERVICE_DEVMEM,
        &[(2, [0x1234_0000, 0, 0, 0, 0, 0, 0, 0])],
    );
    expect_err(
        &mut mem,
        &mut sv,
        buf,
        &["0x12340000", "lane 2", "service 3"],
    );

    // A ready packet without its READY flag.
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 2).unwrap();
    let mut sv = Services::new();
    let p = submit(
        &mut mem,
        buf,
        SERVICE_DEVMEM,
        &[(0, [0, 8, 0, 0, 0, 0, 0, 0])],
    );
    mem.write_u32(header(&mem, buf, p) + B::HEADER_CONTROL, 0)
        .unwrap();
    expect_err(&mut mem, &mut sv, buf, &["without its READY flag"]);

    // A ready stack that loops, and one that names a packet the buffer does not have.
    let mut mem = Memory::default();
    let buf = B::create(&mut mem, 3).unwrap();
    let mut sv = Services::new();
    let p = submit(
        &mut mem,
        buf,
        SERVICE_DEVMEM,
        &[(0, [0, 8, 0, 0, 0, 0, 0, 0])],
    );
    mem.write_u64(header(&mem, buf, p) + B::HEADER_NEXT, p)
        .unwrap();
    expect_err(&mut mem, &mut sv, buf, &["twice"]);
    mem.write_u64(buf + B::READY_STACK, 3).unwrap();
    expect_err(&mut mem, &mut sv, buf, &["packet 3", "3 packets"]);
    // Left as it was for a look afterwards.
    assert_eq!(mem.read_u64(buf + B::READY_STACK).unwrap(), 3);

    // A buffer address that is not one.
    expect_err(&mut mem, &mut sv, 0x10, &["unreadable"]);
}

#[test]
fn garbage_never_panics() {
    let mut rng = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut mem = Memory::new(64 << 20);
    let buf = B::create(&mut mem, 4).unwrap();
    let mut sv = Services::new();
    for round in 0..2000 {
        let service = [SERVICE_PRINTF, SERVICE_DEVMEM][round % 2];
        let lanes: Vec<(u32, [u64; 8])> = (0..1 + next() % 3)
            .map(|_| {
                let mut s = [0u64; 8];
                for w in &mut s {
                    // Mostly small values, so that descriptors and sizes are sometimes valid.
                    *w = match next() % 4 {
                        0 => next(),
                        1 => next() % 64,
                        2 => next() & 0x7f7f_7f7f_7f7f_7f7f,
                        _ => 0x25,
                    };
                }
                ((next() % 64) as u32, s)
            })
            .collect();
        let p = submit(&mut mem, buf, service, &lanes);
        let _ = sv.service(&mut mem, buf, &mut Vec::new());
        // Whatever happened, let the "wave" go on.
        mem.write_u64(buf + B::READY_STACK, 0).unwrap();
        let h = header(&mem, buf, p);
        mem.write_u32(h + B::HEADER_CONTROL, 0).unwrap();
        let mut ids: Vec<u32> = lanes.iter().map(|l| l.0).collect();
        ids.dedup();
        finish(&mut mem, buf, p, &ids);
    }
    sv.release_heap(&mut mem);
}
