//go:build amd64

#include "textflag.h"

// func dots4AVX512(out *float64, x0, x1, x2, x3 *float64, ct, cnorm *float64, kp, d int)
//
// For rows r = 0..3 (x0..x3, d values each) and centres j < kp (kp a
// multiple of 16; ct holds the centres transposed, d rows of kp), it sets
// out[r*kp+j] = cnorm[j] - 2*s, where s = ((0 + x[0]*c[0]) + x[1]*c[1]) + ...
// is accumulated in the order of the columns with separate multiplications
// and additions (no fused multiply-add): the same roundings as the scalar
// loop s += x[l]*c[l].
TEXT ·dots4AVX512(SB), NOSPLIT, $0-72
	MOVQ out+0(FP), DI
	MOVQ ct+40(FP), SI
	MOVQ cnorm+48(FP), DX
	MOVQ kp+56(FP), R12
	SHLQ $3, R12 // kp*8: the stride of ct and out
	MOVQ d+64(FP), BX
	SHLQ $3, BX // d*8
	MOVQ x0+8(FP), R8
	MOVQ x1+16(FP), R9
	MOVQ x2+24(FP), R10
	MOVQ x3+32(FP), R11
	XORQ R13, R13 // the chunk of 16 centres, as a byte offset
chunk:
	CMPQ R13, R12
	JGE done
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	LEAQ (SI)(R13*1), R14
	XORQ AX, AX // column l, as a byte offset
col:
	VMOVUPD (R14), Z8
	VMOVUPD 64(R14), Z9
	VBROADCASTSD (R8)(AX*1), Z10
	VBROADCASTSD (R9)(AX*1), Z11
	VBROADCASTSD (R10)(AX*1), Z12
	VBROADCASTSD (R11)(AX*1), Z13
	VMULPD Z8, Z10, Z14
	VMULPD Z9, Z10, Z15
	VMULPD Z8, Z11, Z16
	VMULPD Z9, Z11, Z17
	VMULPD Z8, Z12, Z18
	VMULPD Z9, Z12, Z19
	VMULPD Z8, Z13, Z20
	VMULPD Z9, Z13, Z21
	VADDPD Z14, Z0, Z0
	VADDPD Z15, Z1, Z1
	VADDPD Z16, Z2, Z2
	VADDPD Z17, Z3, Z3
	VADDPD Z18, Z4, Z4
	VADDPD Z19, Z5, Z5
	VADDPD Z20, Z6, Z6
	VADDPD Z21, Z7, Z7
	ADDQ R12, R14
	ADDQ $8, AX
	CMPQ AX, BX
	JLT col
	VMOVUPD (DX)(R13*1), Z8
	VMOVUPD 64(DX)(R13*1), Z9
	LEAQ (DI)(R13*1), CX
	VADDPD Z0, Z0, Z0
	VSUBPD Z0, Z8, Z0
	VMOVUPD Z0, (CX)
	VADDPD Z1, Z1, Z1
	VSUBPD Z1, Z9, Z1
	VMOVUPD Z1, 64(CX)
	ADDQ R12, CX
	VADDPD Z2, Z2, Z2
	VSUBPD Z2, Z8, Z2
	VMOVUPD Z2, (CX)
	VADDPD Z3, Z3, Z3
	VSUBPD Z3, Z9, Z3
	VMOVUPD Z3, 64(CX)
	ADDQ R12, CX
	VADDPD Z4, Z4, Z4
	VSUBPD Z4, Z8, Z4
	VMOVUPD Z4, (CX)
	VADDPD Z5, Z5, Z5
	VSUBPD Z5, Z9, Z5
	VMOVUPD Z5, 64(CX)
	ADDQ R12, CX
	VADDPD Z6, Z6, Z6
	VSUBPD Z6, Z8, Z6
	VMOVUPD Z6, (CX)
	VADDPD Z7, Z7, Z7
	VSUBPD Z7, Z9, Z7
	VMOVUPD Z7, 64(CX)
	ADDQ $128, R13
	JMP chunk
done:
	VZEROUPPER
	RET

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// func argmin2AVX512(v *float64, kp int) (a int, b1 float64, ok bool)
//
// For the kp values of v (kp a multiple of 8, no NaN), a is the index of
// the first least value and b1 the least of the others (+Inf if there are
// none): what argmin2 computes, but for the sign of a zero b1. ok is
// false, and a and b1 undefined, if any value is NaN.
TEXT ·argmin2AVX512(SB), NOSPLIT, $0-33
	MOVQ v+0(FP), SI
	MOVQ kp+8(FP), CX
	SHLQ $3, CX
	// Z0: the running minimum; K1: lanes that are NaN anywhere.
	VMOVUPD (SI), Z0
	VCMPPD $3, Z0, Z0, K1
	MOVQ $64, AX
min:
	CMPQ AX, CX
	JGE reduce
	VMOVUPD (SI)(AX*1), Z1
	VCMPPD $3, Z1, Z1, K2
	KORW K2, K1, K1
	VMINPD Z1, Z0, Z0
	ADDQ $64, AX
	JMP min
reduce:
	KORTESTW K1, K1
	JNZ nan
	VEXTRACTF64X4 $1, Z0, Y1
	VMINPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VMINPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VMINPD X1, X0, X0
	VBROADCASTSD X0, Z2 // the least value b0 in every lane
	// The first lane equal to b0, and the least of the values at the
	// lanes not equal to b0 (Z3), counting the lanes equal to it (DX).
	MOVQ $0x7ff0000000000000, R8
	VPBROADCASTQ R8, Z3
	XORQ AX, AX
	XORQ DX, DX
	MOVQ $-1, R9 // the first equal index, -1 until found
eq:
	CMPQ AX, CX
	JGE fin
	VMOVUPD (SI)(AX*1), Z1
	VCMPPD $0, Z2, Z1, K2 // equal to b0
	KNOTB K2, K3
	VMINPD Z1, Z3, K3, Z3 // the min of the others, lanes equal to b0 left
	KMOVB K2, R10
	POPCNTL R10, R11
	ADDQ R11, DX
	CMPQ R9, $0
	JGE next
	TESTL R10, R10
	JZ next
	BSFL R10, R9
	MOVQ AX, R12
	SHRQ $3, R12
	ADDQ R12, R9
next:
	ADDQ $64, AX
	JMP eq
fin:
	MOVQ R9, a+16(FP)
	CMPQ DX, $2
	JLT others
	VMOVSD X2, b1+24(FP) // b0 occurs twice or more
	JMP ok
others:
	VEXTRACTF64X4 $1, Z3, Y1
	VMINPD Y1, Y3, Y3
	VEXTRACTF128 $1, Y3, X1
	VMINPD X1, X3, X3
	VPERMILPD $1, X3, X1
	VMINPD X1, X3, X3
	VMOVSD X3, b1+24(FP)
ok:
	MOVB $1, ok+32(FP)
	VZEROUPPER
	RET
nan:
	MOVB $0, ok+32(FP)
	VZEROUPPER
	RET

// func addRowsAVX512(sums, x *float64, d int, labels *int32, n, k int)
//
// For the n rows of x (d values each), in order, adds the row to
// sums[labels[i]*d : (labels[i]+1)*d]; labels are checked to be below k
// (the sums hold k×d values), or nothing more is added.
TEXT ·addRowsAVX512(SB), NOSPLIT, $0-48
	MOVQ sums+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ d+16(FP), BX
	MOVQ labels+24(FP), R8
	MOVQ BX, R9
	ANDQ $7, R9 // the values past the last full 8
	MOVQ R9, CX
	MOVQ $1, R10
	SHLQ CX, R10
	MOVQ n+32(FP), CX
	MOVQ k+40(FP), R13
	DECQ R10
	KMOVB R10, K1 // the mask of the last partial 8
	MOVQ BX, R11
	SUBQ R9, R11
	SHLQ $3, R11 // the bytes of the full 8s
	MOVQ BX, R12
	SHLQ $3, R12 // the bytes of a row
row:
	TESTQ CX, CX
	JZ done
	MOVLQSX (R8), AX
	CMPQ AX, R13
	JAE done
	IMULQ R12, AX
	ADDQ DI, AX // the sums of the row's cluster
	XORQ DX, DX
full:
	CMPQ DX, R11
	JGE part
	VMOVUPD (AX)(DX*1), Z0
	VADDPD (SI)(DX*1), Z0, Z0
	VMOVUPD Z0, (AX)(DX*1)
	ADDQ $64, DX
	JMP full
part:
	TESTQ R9, R9
	JZ nextrow
	VMOVUPD.Z (AX)(DX*1), K1, Z0
	VMOVUPD.Z (SI)(DX*1), K1, Z1
	VADDPD Z1, Z0, Z0
	VMOVUPD Z0, K1, (AX)(DX*1)
nextrow:
	ADDQ R12, SI
	ADDQ $4, R8
	DECQ CX
	JMP row
done:
	VZEROUPPER
	RET
