//! gcnemu: run, disassemble and lint gfx9 code objects.
