package dev.toolyard.sandbox.internal;

import dev.toolyard.spi.Text;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Reads one output stream of a run, keeping at most {@code cap} bytes. The first byte past the cap
 * stops the reading and calls {@code onOverflow} (the supervisor kills the run); the text then ends
 * with the truncation label, the whole within {@code cap} UTF-8 bytes. Runs once, on its own thread;
 * {@link #text()} may be called from another. Thread-safe.
 */
public final class OutputCapture implements Runnable {
    private static final int CHUNK = 8192;

    private final InputStream in;
    private final int cap;
    private final Runnable onOverflow;
    private final CountDownLatch done = new CountDownLatch(1);
    private byte[] kept = new byte[0];
    private int size;
    private long received;
    private boolean overflowed;

    /**
     * @param cap bytes kept, at least 256 so the label fits
     * @param onOverflow called once, from the reading thread, when the cap is passed
     */
    public OutputCapture(InputStream in, int cap, Runnable onOverflow) {
        if (cap < 256) {
            throw new IllegalArgumentException("cap must be at least 256, got " + cap);
        }
        this.in = in;
        this.cap = cap;
        this.onOverflow = onOverflow;
    }

    @Override
    public void run() {
        byte[] chunk = new byte[CHUNK];
        try {
            int n;
            while ((n = in.read(chunk)) >= 0) {
                boolean over;
                synchronized (this) {
                    int take = Math.min(n, cap - size);
                    if (take > 0) {
                        if (size + take > kept.length) {
                            kept = Arrays.copyOf(kept, Math.min(cap, Math.max(size + take, kept.length * 2)));
                        }
                        System.arraycopy(chunk, 0, kept, size, take);
                        size += take;
                    }
                    received += n;
                    over = received > cap;
                    overflowed = over;
                }
                if (over) {
                    onOverflow.run();
                    return;
                }
            }
        } catch (IOException e) {
            // the stream was closed under us: what was read stands
        } finally {
            done.countDown();
        }
    }

    /** @return whether reading ended (end of stream, overflow or error) within the wait */
    public boolean awaitDone(long timeout, TimeUnit unit) throws InterruptedException {
        return done.await(timeout, unit);
    }

    /** @return whether the stream passed the cap */
    public synchronized boolean overflowed() {
        return overflowed;
    }

    /** @return what was read, decoded as UTF-8 and capped, with the label when cut */
    public synchronized Text.Capped text() {
        return render(kept, size, received, cap);
    }

    /**
     * @param bytes the bytes kept, the first {@code length} of them
     * @param received all bytes received, at least {@code length}
     * @return the text within {@code cap} UTF-8 bytes; when cut, its head and the label, which states
     *     the cap and the bytes received before the reading stopped
     */
    static Text.Capped render(byte[] bytes, int length, long received, int cap) {
        String s = decode(bytes, length, received > length);
        if (received <= cap) {
            // Malformed bytes decode to U+FFFD, three bytes each: the text may still need a cut.
            return Text.cap(s, cap);
        }
        String label = Text.label(cap, received);
        return new Text.Capped(Text.prefixWithin(s, cap - Text.utf8Length(label)) + label, true, received);
    }

    /** Malformed input becomes U+FFFD; a sequence cut by the cap is dropped rather than replaced. */
    private static String decode(byte[] bytes, int length, boolean cut) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPLACE)
                .onUnmappableCharacter(CodingErrorAction.REPLACE);
        ByteBuffer in = ByteBuffer.wrap(bytes, 0, length);
        CharBuffer out = CharBuffer.allocate(length + 1);
        decoder.decode(in, out, !cut);
        if (!cut) {
            decoder.flush(out);
        }
        out.flip();
        return out.toString();
    }
}
