package dev.toolyard.sandbox.internal;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * A classic-BPF assembler for seccomp programs, just big enough for {@link SeccompFilter}: absolute
 * word loads, forward conditional jumps to labels, returns. Classic BPF jumps only forward, by an
 * 8-bit offset; {@link #assemble()} resolves the labels and fails loudly if an offset does not fit,
 * rather than emitting a program whose jump wraps around to the wrong instruction. Not thread-safe;
 * one assembler builds one program.
 */
final class BpfAssembler {
    // linux/bpf_common.h
    static final int BPF_LD = 0x00;
    static final int BPF_JMP = 0x05;
    static final int BPF_RET = 0x06;
    static final int BPF_W = 0x00;
    static final int BPF_ABS = 0x20;
    static final int BPF_JA = 0x00;
    static final int BPF_JEQ = 0x10;
    static final int BPF_JGT = 0x20;
    static final int BPF_JGE = 0x30;
    static final int BPF_JSET = 0x40;
    static final int BPF_K = 0x00;
    /** {@code BPF_MAXINSNS}: the kernel refuses a longer classic program. */
    static final int MAX_INSTRUCTIONS = 4096;
    /** Bytes per {@code struct sock_filter}: u16 code, u8 jt, u8 jf, u32 k. */
    static final int INSTRUCTION_BYTES = 8;

    /** A jump target, bound to one instruction index. */
    static final class Label {
        private final String name;
        private int at = -1;

        private Label(String name) {
            this.name = name;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    private record Insn(int code, Label jt, Label jf, int k) {}

    private final List<Insn> program = new ArrayList<>();

    /** @return a new, unbound label; {@code name} appears in overflow messages */
    Label label(String name) {
        return new Label(name);
    }

    /** Binds {@code label} to the next instruction. */
    BpfAssembler bind(Label label) {
        if (label.at >= 0) {
            throw new IllegalStateException("label " + label + " bound twice");
        }
        label.at = program.size();
        return this;
    }

    /** {@code A = *(u32 *)(seccomp_data + offset)}. */
    BpfAssembler loadWord(int offset) {
        return add(BPF_LD | BPF_W | BPF_ABS, null, null, offset);
    }

    /** {@code if (A == k) goto t else goto f}; a {@code null} label means the next instruction. */
    BpfAssembler jumpIfEqual(int k, Label t, Label f) {
        return add(BPF_JMP | BPF_JEQ | BPF_K, t, f, k);
    }

    /** {@code if (A >= k) goto t else goto f}, unsigned; a {@code null} label means the next instruction. */
    BpfAssembler jumpIfAtLeast(int k, Label t, Label f) {
        return add(BPF_JMP | BPF_JGE | BPF_K, t, f, k);
    }

    /** {@code if (A & k) goto t else goto f}; a {@code null} label means the next instruction. */
    BpfAssembler jumpIfAnySet(int k, Label t, Label f) {
        return add(BPF_JMP | BPF_JSET | BPF_K, t, f, k);
    }

    /** {@code return k}. */
    BpfAssembler ret(int k) {
        return add(BPF_RET | BPF_K, null, null, k);
    }

    private BpfAssembler add(int code, Label t, Label f, int k) {
        program.add(new Insn(code, t, f, k));
        return this;
    }

    /**
     * @return the program as {@code struct sock_filter[]}, little-endian
     * @throws IllegalStateException if a label is unbound or behind its jump, a jump offset exceeds
     *     255, the program is empty or too long, or it does not end in a return
     */
    byte[] assemble() {
        if (program.isEmpty() || program.size() > MAX_INSTRUCTIONS) {
            throw new IllegalStateException("a classic BPF program has 1.." + MAX_INSTRUCTIONS
                    + " instructions, this one " + program.size());
        }
        if ((program.get(program.size() - 1).code() & 0x07) != BPF_RET) {
            throw new IllegalStateException("the program must end in a return");
        }
        ByteBuffer out = ByteBuffer.allocate(program.size() * INSTRUCTION_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        for (int pc = 0; pc < program.size(); pc++) {
            Insn i = program.get(pc);
            out.putShort((short) i.code());
            out.put((byte) offset(pc, i.jt()));
            out.put((byte) offset(pc, i.jf()));
            out.putInt(i.k());
        }
        return out.array();
    }

    private int offset(int pc, Label target) {
        if (target == null) {
            return 0;
        }
        if (target.at < 0) {
            throw new IllegalStateException("label " + target + " is never bound");
        }
        int off = target.at - (pc + 1);
        if (off < 0) {
            throw new IllegalStateException("instruction " + pc + " jumps back to " + target
                    + "; classic BPF jumps only forward");
        }
        if (off > 255) {
            throw new IllegalStateException("instruction " + pc + " jumps " + off + " instructions to " + target
                    + ", more than the 255 a classic BPF conditional jump can encode");
        }
        return off;
    }
}
