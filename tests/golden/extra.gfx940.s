// gfx940's (and gfx942's) own instructions the opcode sweep cannot reach (no operands but their
// cache-scope bits); see extra.s.
buffer_wbl2
buffer_wbl2 sc0
buffer_wbl2 sc1
buffer_wbl2 sc0 sc1
buffer_inv
buffer_inv sc0
buffer_inv sc1
buffer_inv sc0 sc1
