// Instructions the opcode sweep (gen_golden.py) cannot reach: no operands or implicit-only
// operands. gen_extra.py assembles them with llvm-mc-15 into <target>/EXTRA.txt.
s_dcache_inv
s_dcache_wb
s_dcache_inv_vol
s_dcache_wb_vol
s_memtime s[4:5]
s_memtime ttmp[2:3]
s_memtime vcc
s_memrealtime s[10:11]
s_memrealtime ttmp[4:5]
buffer_wbinvl1
buffer_wbinvl1_vol
