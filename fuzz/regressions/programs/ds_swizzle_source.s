// gfx900, 4 waves
// ds_swizzle_b32 swizzled v0 (its DATA0 field) instead of its ADDR operand v24, and the timing
// model, which copies only the operands, saw zeros: the stored v14 differed.
s_load_dwordx4 s[4:7], s[0:1], 0x0
s_load_dwordx2 s[16:17], s[0:1], 0x10
s_mul_i32 s3, s2, 0x2000
v_lshlrev_b32 v1, 5, v0
v_add_u32 v1, s3, v1
v_mul_u32_u24 v2, 0x94, v0
v_and_b32 v2, 0xffc, v2
v_lshlrev_b32 v8, 4, v0
v_lshlrev_b32 v9, 2, v0
v_add_u32 v9, 0x1000, v9
s_mov_b32 m0, -1
s_waitcnt lgkmcnt(0)
v_mov_b32 v5, s7
v_add_co_u32 v4, vcc, s6, v1
v_addc_co_u32 v5, vcc, 0, v5, vcc
v_mov_b32 v7, s5
v_add_co_u32 v6, vcc, s4, v2
v_addc_co_u32 v7, vcc, 0, v7, vcc
s_mov_b32 s8, s6
s_and_b32 s9, s7, 0xffff
s_mov_b32 s10, 0x4000
s_mov_b32 s11, 0x27000
s_mov_b32 s12, s4
s_and_b32 s13, s5, 0xffff
s_mov_b32 s14, 0x2000
s_mov_b32 s15, 0x27000
global_load_dwordx4 v[10:13], v2, s[4:5]
global_load_dwordx4 v[14:17], v2, s[4:5] offset:256
global_load_dwordx4 v[18:21], v2, s[4:5] offset:512
global_load_dwordx4 v[22:25], v2, s[4:5] offset:768
global_load_dwordx4 v[26:29], v2, s[4:5] offset:1024
global_load_dwordx2 v[30:31], v2, s[4:5] offset:1280
s_load_dwordx16 s[20:35], s[4:5], 0x40
s_load_dwordx4 s[36:39], s[4:5], 0x80
s_waitcnt vmcnt(0) lgkmcnt(0)
ds_write_b128 v8, v[10:13]
ds_write_b32 v9, v14
s_waitcnt lgkmcnt(0)
ds_swizzle_b32 v14, v24 offset:0x2a49
s_waitcnt lgkmcnt(0)
s_waitcnt lgkmcnt(0)
global_store_dwordx4 v1, v[14:17], s[6:7] offset:8
s_endpgm
