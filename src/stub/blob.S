/* crt-stub (src/stub/crt-stub.c), linked into crt as bytes. */
	.section .rodata
	.balign 16
	.globl crt_stub_start, crt_stub_end
crt_stub_start:
	.incbin STUB_BIN
crt_stub_end:
	.section .note.GNU-stack,"",%progbits
