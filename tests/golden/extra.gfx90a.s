// gfx90a's own instructions the opcode sweep cannot reach (no operands); see extra.s.
buffer_wbl2
buffer_invl2
