/*
 * The first object of ysflops-amd64-linux (meson.build): 16 bytes of
 * text before valgrind's core and VEX, so that their code lies where it
 * lies in valgrind's own tools, whatever the size of ysflops.c (linked
 * from an archive, it lands after them).
 *
 * Why: VEX runs a packed FMA (vfmadd231pd) as one call per lane of
 * h_generic_calc_MAddF64, a software FMA; placed at a 64-byte boundary,
 * as it was when ysflops.c came first, that helper ran 2.1 times slower
 * on this machine's CPU (1.12 s of user time against 2.34 s for 4e7
 * lanes: bench/roofline_count.sh, flopkern fma64), which made a count
 * of FMA code twice as slow as valgrind's --tool=none. 16 bytes put it
 * 16 bytes past a 32-byte boundary, as in Debian's none-amd64-linux.
 */
__asm__(".text\n\t.skip 16\n");
