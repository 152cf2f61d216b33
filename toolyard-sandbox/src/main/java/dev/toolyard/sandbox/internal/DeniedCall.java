package dev.toolyard.sandbox.internal;

import java.util.List;
import java.util.Objects;

/**
 * One entry of the seccomp deny list: a system call, when it is denied, and the errno it then
 * fails with. Conditions look at the <em>low 32 bits</em> of one argument only, on purpose: the
 * kernel truncates the arguments these calls take as {@code unsigned int} (ioctl's {@code cmd},
 * personality's persona, the clone flags it copies with {@code lower_32_bits}), so a condition on
 * all 64 bits could be passed by setting high bits the kernel then throws away (CVE-2019-10063).
 * Immutable. Thread-safe.
 *
 * @param name the system call's name, as in the kernel's tables; never {@code null}
 * @param when when the call is denied; never {@code null}
 * @param errno the errno a denied call fails with, 1 to 4095
 * @param why one short phrase saying why the call is denied, for the doctor and the docs
 */
public record DeniedCall(String name, Condition when, int errno, String why) {
    /** {@code EPERM}: what a denied call fails with. */
    public static final int EPERM = 1;
    /** {@code ENOSYS}: what {@code clone3} fails with, so that the C library falls back to {@code clone}. */
    public static final int ENOSYS = 38;

    /** Checks the errno range ({@code SECCOMP_RET_DATA} holds 16 bits; the kernel caps errno at 4095). */
    public DeniedCall {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(when, "when");
        Objects.requireNonNull(why, "why");
        if (errno < 1 || errno > 4095) {
            throw new IllegalArgumentException("errno must be 1..4095, got " + errno);
        }
    }

    /** When a call is denied. */
    public sealed interface Condition permits Always, AnyFlagSet, ArgIn, ArgNotIn {}

    /** Denied whatever its arguments. */
    public record Always() implements Condition {}

    /**
     * Denied when the low 32 bits of argument {@code arg} have any bit of {@code mask} set.
     *
     * @param arg the argument's index, 0 to 5
     * @param mask the bits, read as unsigned
     */
    public record AnyFlagSet(int arg, int mask) implements Condition {
        /** Checks the index. */
        public AnyFlagSet {
            checkArg(arg);
        }
    }

    /**
     * Denied when the low 32 bits of argument {@code arg} equal one of {@code values}.
     *
     * @param arg the argument's index, 0 to 5
     * @param values the denied values, read as unsigned; at least one
     */
    public record ArgIn(int arg, List<Integer> values) implements Condition {
        /** Checks the index and copies the values. */
        public ArgIn {
            checkArg(arg);
            values = List.copyOf(values);
            if (values.isEmpty()) {
                throw new IllegalArgumentException("ArgIn needs at least one value");
            }
        }
    }

    /**
     * Denied unless the low 32 bits of argument {@code arg} equal one of {@code values}.
     *
     * @param arg the argument's index, 0 to 5
     * @param values the allowed values, read as unsigned; at least one
     */
    public record ArgNotIn(int arg, List<Integer> values) implements Condition {
        /** Checks the index and copies the values. */
        public ArgNotIn {
            checkArg(arg);
            values = List.copyOf(values);
            if (values.isEmpty()) {
                throw new IllegalArgumentException("ArgNotIn needs at least one value");
            }
        }
    }

    private static void checkArg(int arg) {
        if (arg < 0 || arg > 5) {
            throw new IllegalArgumentException("a system call has arguments 0..5, got " + arg);
        }
    }
}
