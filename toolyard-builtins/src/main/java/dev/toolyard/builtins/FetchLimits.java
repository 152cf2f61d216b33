package dev.toolyard.builtins;

import java.time.Duration;
import java.util.Objects;

/**
 * The caps of {@code http_fetch}: body size, redirects, and the connect, read and whole-call
 * timeouts. Defaults (also {@link #defaults()}): body 8,388,608 bytes (8 MiB),
 * 3 redirects, connect 5 s, read 30 s, whole call 60 s. The whole-call
 * timeout covers every hop of a fetch, redirects included; a call also never outlives the
 * invocation's own timeout ({@link dev.toolyard.ToolContext#timeout()}), whichever is shorter.
 *
 * <p>Immutable. Thread-safe.
 */
public final class FetchLimits {
    /** Default cap on a response body, in bytes, after any content decoding: 8 MiB. */
    static final long DEFAULT_MAX_BODY_BYTES = 8L * 1024 * 1024;
    /** Default number of redirects followed. */
    static final int DEFAULT_MAX_REDIRECTS = 3;
    /** Largest body cap accepted: the body is held in memory. */
    static final long MAX_BODY_BYTES_LIMIT = 1L << 30;
    /** Largest redirect cap accepted. */
    static final int MAX_REDIRECTS_LIMIT = 20;

    private static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration DEFAULT_READ_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration DEFAULT_CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration MAX_TIMEOUT = Duration.ofHours(1);
    private static final FetchLimits DEFAULTS = builder().build();

    private final long maxBodyBytes;
    private final int maxRedirects;
    private final Duration connectTimeout;
    private final Duration readTimeout;
    private final Duration callTimeout;

    private FetchLimits(Builder b) {
        this.maxBodyBytes = b.maxBodyBytes;
        this.maxRedirects = b.maxRedirects;
        this.connectTimeout = b.connectTimeout;
        this.readTimeout = b.readTimeout;
        this.callTimeout = b.callTimeout;
    }

    /** @return the defaults; never {@code null} */
    public static FetchLimits defaults() {
        return DEFAULTS;
    }

    /** @return a builder starting from the defaults; never {@code null} */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the largest body accepted, in bytes; a larger one is refused whole ({@code too_large}) */
    public long maxBodyBytes() {
        return maxBodyBytes;
    }

    /** @return how many redirects one fetch follows; one more is refused ({@code too_many_redirects}) */
    public int maxRedirects() {
        return maxRedirects;
    }

    /** @return the timeout of each TCP (and TLS) connect; never {@code null} */
    public Duration connectTimeout() {
        return connectTimeout;
    }

    /** @return the longest wait for the next bytes while reading (and writing); never {@code null} */
    public Duration readTimeout() {
        return readTimeout;
    }

    /** @return the longest a whole fetch may take, all redirects included; never {@code null} */
    public Duration callTimeout() {
        return callTimeout;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FetchLimits f && maxBodyBytes == f.maxBodyBytes && maxRedirects == f.maxRedirects
                && connectTimeout.equals(f.connectTimeout) && readTimeout.equals(f.readTimeout)
                && callTimeout.equals(f.callTimeout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(maxBodyBytes, maxRedirects, connectTimeout, readTimeout, callTimeout);
    }

    @Override
    public String toString() {
        return "FetchLimits[maxBodyBytes=" + maxBodyBytes + ", maxRedirects=" + maxRedirects + ", connectTimeout="
                + connectTimeout + ", readTimeout=" + readTimeout + ", callTimeout=" + callTimeout + "]";
    }

    /**
     * Builds {@link FetchLimits}, starting from the defaults. Each setter checks its argument at once and
     * names it in the exception. Not thread-safe.
     */
    public static final class Builder {
        private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
        private int maxRedirects = DEFAULT_MAX_REDIRECTS;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration readTimeout = DEFAULT_READ_TIMEOUT;
        private Duration callTimeout = DEFAULT_CALL_TIMEOUT;

        private Builder() {}

        /**
         * @param maxBodyBytes the largest body accepted, 1 to 1,073,741,824 (1 GiB) bytes
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxBodyBytes(long maxBodyBytes) {
            if (maxBodyBytes < 1 || maxBodyBytes > MAX_BODY_BYTES_LIMIT) {
                throw new IllegalArgumentException(
                        "maxBodyBytes must be 1-" + MAX_BODY_BYTES_LIMIT + ", got " + maxBodyBytes);
            }
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /**
         * @param maxRedirects how many redirects one fetch follows, 0 to 20
         * @return this builder
         * @throws IllegalArgumentException if out of range
         */
        public Builder maxRedirects(int maxRedirects) {
            if (maxRedirects < 0 || maxRedirects > MAX_REDIRECTS_LIMIT) {
                throw new IllegalArgumentException(
                        "maxRedirects must be 0-" + MAX_REDIRECTS_LIMIT + ", got " + maxRedirects);
            }
            this.maxRedirects = maxRedirects;
            return this;
        }

        /**
         * @param connectTimeout the timeout of each connect; positive, at most one hour
         * @return this builder
         * @throws NullPointerException if {@code null}
         * @throws IllegalArgumentException if not positive or over one hour
         */
        public Builder connectTimeout(Duration connectTimeout) {
            this.connectTimeout = checked("connectTimeout", connectTimeout);
            return this;
        }

        /**
         * @param readTimeout the longest wait for the next bytes; positive, at most one hour
         * @return this builder
         * @throws NullPointerException if {@code null}
         * @throws IllegalArgumentException if not positive or over one hour
         */
        public Builder readTimeout(Duration readTimeout) {
            this.readTimeout = checked("readTimeout", readTimeout);
            return this;
        }

        /**
         * @param callTimeout the longest a whole fetch may take, redirects included; positive, at most one hour
         * @return this builder
         * @throws NullPointerException if {@code null}
         * @throws IllegalArgumentException if not positive or over one hour
         */
        public Builder callTimeout(Duration callTimeout) {
            this.callTimeout = checked("callTimeout", callTimeout);
            return this;
        }

        /** @return the limits; never {@code null} */
        public FetchLimits build() {
            return new FetchLimits(this);
        }

        private static Duration checked(String name, Duration d) {
            Objects.requireNonNull(d, name);
            if (d.isNegative() || d.isZero() || d.compareTo(MAX_TIMEOUT) > 0) {
                throw new IllegalArgumentException(name + " must be positive and at most " + MAX_TIMEOUT + ", got " + d);
            }
            if (d.toMillis() == 0) {
                throw new IllegalArgumentException(name + " must be at least 1 ms, got " + d);
            }
            return d;
        }
    }
}
