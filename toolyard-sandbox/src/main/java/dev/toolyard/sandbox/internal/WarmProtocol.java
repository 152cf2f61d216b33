package dev.toolyard.sandbox.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.Charset;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The frames between the JVM and a warm sandbox's supervisor ({@code src/main/c/toolyard-warm.c},
 * whose header comment describes them). Each constant here is the C file's {@code TY_} constant of
 * the same name: {@code WarmProtocolTest} reads the C file's {@code #define}s and fails on any
 * difference, so the two sides cannot drift apart. All integers are unsigned big-endian. Stateless.
 */
final class WarmProtocol {
    /** Once, after start: the write root's device and inode as the supervisor sees it bound. */
    static final char TAG_READY = 'R';
    /** Before each command is forked: without it the command provably never started. */
    static final char TAG_STARTED = 'S';
    static final char TAG_STDOUT = 'O';
    static final char TAG_STDERR = 'E';
    /** After each command, once everything it left is killed, reaped and wiped. */
    static final char TAG_EXIT = 'X';
    /** The ready frame's length: two 64-bit numbers. */
    static final int READY_BYTES = 16;
    /** The exit frame's length: status, processes left, flags. */
    static final int EXIT_BYTES = 12;
    /** Exit flag: something was wiped. */
    static final int FLAG_WIPED = 1;
    /** Exit flag: not everything could be wiped. */
    static final int FLAG_WIPE_INCOMPLETE = 2;
    /** Exit flag: a socket outlived the command in the network namespace. */
    static final int FLAG_SOCKETS_LEFT = 4;
    /** Exit flag: the command changed the write root's or a wiped directory's owner or mode. */
    static final int FLAG_CHANGED = 8;
    /**
     * Exit flag: a packet counter of the network namespace moved while the command ran (it sent or received
     * a packet, loopback included), so a port it used may still be taken in {@code TIME_WAIT}, which gVisor's
     * {@code /proc/net} does not list.
     */
    static final int FLAG_PACKETS_MOVED = 16;
    /** The largest request the supervisor reads. */
    static final int MAX_REQUEST = 16 << 20;
    /** The largest seccomp program the supervisor reads, in bytes. */
    static final int MAX_FILTER = 4096 * 8;
    /** The largest output frame the supervisor writes. */
    static final int MAX_OUTPUT_FRAME = 65536;
    /** The exit status of a command the supervisor could not set up (a limit, the uid switch). */
    static final int CHILD_FAILED = 125;
    /** The mode of each wiped directory, root's and the sandbox gid's. */
    static final int WIPE_DIR_MODE = 01770;

    /** The flags after which a sandbox is not used again. */
    static final int SPOILED = FLAG_WIPE_INCOMPLETE | FLAG_SOCKETS_LEFT | FLAG_CHANGED | FLAG_PACKETS_MOVED;

    private WarmProtocol() {}

    /** The exit frame. */
    record Exit(int status, int left, int flags) {
        /** @return whether the sandbox may take another command after this one */
        boolean clean() {
            return status < 128 && left == 0 && (flags & SPOILED) == 0;
        }
    }

    /** The ready frame: the write root the sandbox bound. */
    record Ready(long device, long inode) {}

    static Exit exit(byte[] b, int n) throws IOException {
        if (n != EXIT_BYTES) {
            throw new IOException("an exit frame of " + n + " bytes");
        }
        return new Exit(readInt(b, 0), readInt(b, 4), readInt(b, 8));
    }

    static Ready ready(byte[] b, int n) throws IOException {
        if (n != READY_BYTES) {
            throw new IOException("a ready frame of " + n + " bytes");
        }
        return new Ready(readLong(b, 0), readLong(b, 8));
    }

    /** @return the seccomp frame: its length, then the program */
    static byte[] filter(byte[] program) throws IOException {
        if (program.length % 8 != 0 || program.length > MAX_FILTER) {
            throw new IllegalArgumentException("a seccomp program of " + program.length + " bytes");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(program.length + 4);
        writeInt(out, program.length);
        out.write(program);
        return out.toByteArray();
    }

    /** @return the request frame: its length, then argc, each argument, envc, each {@code NAME=VALUE} in name order */
    static byte[] request(List<String> command, Map<String, String> env, Charset charset) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream(256);
        writeInt(body, command.size());
        for (String a : command) {
            writeString(body, a, charset);
        }
        writeInt(body, env.size());
        for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
            writeString(body, e.getKey() + "=" + e.getValue(), charset);
        }
        if (body.size() > MAX_REQUEST) {
            throw new IOException("a request of " + body.size() + " bytes, over the supervisor's " + MAX_REQUEST);
        }
        ByteArrayOutputStream framed = new ByteArrayOutputStream(body.size() + 4);
        writeInt(framed, body.size());
        body.writeTo(framed);
        return framed.toByteArray();
    }

    private static void writeString(OutputStream out, String s, Charset charset) throws IOException {
        byte[] b = s.getBytes(charset);
        writeInt(out, b.length);
        out.write(b);
    }

    static void writeInt(OutputStream out, int v) throws IOException {
        out.write(v >>> 24);
        out.write(v >>> 16);
        out.write(v >>> 8);
        out.write(v);
    }

    static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    static long readLong(byte[] b, int at) {
        return ((long) readInt(b, at) << 32) | (readInt(b, at + 4) & 0xffff_ffffL);
    }
}
