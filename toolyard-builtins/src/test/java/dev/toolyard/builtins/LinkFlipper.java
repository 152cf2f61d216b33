package dev.toolyard.builtins;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Flips a path inside the workspace, as fast as it can, between what it really is and a symbolic link
 * to a place outside: the race an attacker with write access to the workspace would run against a
 * tool that checks a path and then uses it.
 *
 * <p>A directory cannot be swapped for a link atomically, so a flipped directory passes through three
 * states: real, missing, link. If a tool creates something there while it is missing, that is moved
 * aside (inside the workspace) and the flipping goes on. A flipped file is swapped atomically
 * (rename over it), so it is never missing. Closing stops the flipping and restores the original.
 */
final class LinkFlipper implements AutoCloseable {
    private final Path path;
    private final Path parked;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final AtomicInteger flips = new AtomicInteger();
    private final AtomicReference<Exception> failure = new AtomicReference<>();
    private final Thread thread;
    private int strays;

    /** Flips a directory: real, missing, link to {@code outside}, missing, real, ... */
    static LinkFlipper directory(Path dir, Path outside) {
        return new LinkFlipper(dir, outside, false);
    }

    /** Flips a regular file: real, link to {@code outside}, real, ... never missing. */
    static LinkFlipper file(Path file, Path outside) {
        return new LinkFlipper(file, outside, true);
    }

    private LinkFlipper(Path path, Path outside, boolean atomic) {
        this.path = path;
        this.parked = path.resolveSibling(path.getFileName() + "-parked");
        Path staging = path.resolveSibling(path.getFileName() + "-staging");
        this.thread = new Thread(() -> {
            try {
                while (!stop.get()) {
                    if (atomic) {
                        Files.copy(path, parked, StandardCopyOption.REPLACE_EXISTING, LinkOption.NOFOLLOW_LINKS);
                        Files.deleteIfExists(staging);
                        Files.createSymbolicLink(staging, outside);
                        Files.move(staging, path, StandardCopyOption.ATOMIC_MOVE);
                        Thread.onSpinWait();
                        Files.move(parked, path, StandardCopyOption.ATOMIC_MOVE);
                    } else {
                        Files.move(path, parked);
                        placeLink(outside);
                        Thread.onSpinWait();
                        Files.delete(path);
                        placeBack();
                    }
                    flips.incrementAndGet();
                }
            } catch (IOException e) {
                failure.set(e);
            }
        }, "link-flipper");
        thread.setDaemon(true);
        thread.start();
    }

    private void placeLink(Path outside) throws IOException {
        while (true) {
            try {
                Files.createSymbolicLink(path, outside);
                return;
            } catch (IOException e) {
                moveStrayAside(e);
            }
        }
    }

    private void placeBack() throws IOException {
        while (true) {
            try {
                Files.move(parked, path);
                return;
            } catch (IOException e) {
                moveStrayAside(e);
            }
        }
    }

    /** Something a tool created took the path while it was missing: move it aside, or rethrow. */
    private void moveStrayAside(IOException cause) throws IOException {
        if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            throw cause;
        }
        Files.move(path, path.resolveSibling(path.getFileName() + "-stray-" + (++strays)));
    }

    /** @return how many full flips were made so far */
    int flips() {
        return flips.get();
    }

    @Override
    public void close() throws IOException {
        stop.set(true);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the flipper", e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("the flipper failed", failure.get());
        }
        if (Files.isSymbolicLink(path)) {
            Files.delete(path);
        }
        if (Files.exists(parked, LinkOption.NOFOLLOW_LINKS)) {
            Files.move(parked, path, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
