//! AMDGPU ELF code objects: sections and symbols for the disassembler (issue 2); the full loader follows.
