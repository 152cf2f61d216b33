package dev.toolyard.sandbox.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A classic-BPF interpreter for seccomp programs, written from the kernel's rules rather than from
 * {@link BpfAssembler}, so the two can disagree. It accepts only what the kernel's
 * {@code seccomp_check_filter} accepts of the instructions our assembler could emit (word loads from
 * {@code seccomp_data} at aligned offsets below 64, constant jumps, constant returns) and refuses
 * anything else, as well as jumps past the end and programs the kernel would reject. Stateless.
 */
final class ClassicBpf {
    /** {@code sizeof(struct seccomp_data)}. */
    static final int SECCOMP_DATA_BYTES = 64;

    private ClassicBpf() {}

    /** @return {@code struct seccomp_data} for a call, little-endian */
    static byte[] seccompData(int nr, int arch, long... args) {
        if (args.length > 6) {
            throw new IllegalArgumentException("at most 6 args");
        }
        ByteBuffer b = ByteBuffer.allocate(SECCOMP_DATA_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(nr).putInt(arch).putLong(0x7f00_dead_beefL);
        for (int i = 0; i < 6; i++) {
            b.putLong(i < args.length ? args[i] : 0);
        }
        return b.array();
    }

    /** @return what {@code program} returns for {@code data} */
    static int run(byte[] program, byte[] data) {
        if (program.length == 0 || program.length % 8 != 0 || program.length / 8 > 4096) {
            throw new IllegalArgumentException("not a classic BPF program: " + program.length + " bytes");
        }
        ByteBuffer p = ByteBuffer.wrap(program).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer d = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        int n = program.length / 8;
        int a = 0;
        int pc = 0;
        int steps = 0;
        while (true) {
            if (pc >= n) {
                throw new IllegalStateException("ran off the end of the program");
            }
            if (++steps > n) {
                throw new IllegalStateException("more steps than instructions: a backward jump?");
            }
            int code = Short.toUnsignedInt(p.getShort(pc * 8));
            int jt = Byte.toUnsignedInt(p.get(pc * 8 + 2));
            int jf = Byte.toUnsignedInt(p.get(pc * 8 + 3));
            int k = p.getInt(pc * 8 + 4);
            pc++;
            switch (code) {
                case 0x20: // BPF_LD | BPF_W | BPF_ABS
                    if (k < 0 || k >= SECCOMP_DATA_BYTES || (k & 3) != 0) {
                        throw new IllegalStateException("load from offset " + k + " the kernel would refuse");
                    }
                    a = d.getInt(k);
                    break;
                case 0x05: // BPF_JMP | BPF_JA
                    pc += k;
                    break;
                case 0x15: // BPF_JEQ | BPF_K
                    pc += a == k ? jt : jf;
                    break;
                case 0x25: // BPF_JGT | BPF_K, unsigned
                    pc += Integer.compareUnsigned(a, k) > 0 ? jt : jf;
                    break;
                case 0x35: // BPF_JGE | BPF_K, unsigned
                    pc += Integer.compareUnsigned(a, k) >= 0 ? jt : jf;
                    break;
                case 0x45: // BPF_JSET | BPF_K
                    pc += (a & k) != 0 ? jt : jf;
                    break;
                case 0x06: // BPF_RET | BPF_K
                    return k;
                default:
                    throw new IllegalStateException("instruction " + (pc - 1) + " has opcode 0x"
                            + Integer.toHexString(code) + ", which this interpreter does not model");
            }
        }
    }
}
