package dev.toolyard.sandbox;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** The builder's checks of a sandbox uid or gid block against the host's user databases. Stateless. */
final class IdBlockCheck {
    private static final int NOBODY = 65534;

    private IdBlockCheck() {}

    /**
     * @param database the lines of {@code /etc/passwd} or {@code /etc/group}, whose third field is the id
     * @throws IllegalArgumentException naming {@code parameter} if the block is not one runs may use
     */
    static void checkIds(String parameter, int first, int count, List<String> database) {
        long last = (long) first + count - 1;
        if (first < 1 || last > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException(parameter + " must be at least 1, and it and the " + (count - 1)
                    + " ids after it below 2^31 - 1, got " + first);
        }
        if (first <= NOBODY && NOBODY <= last) {
            throw new IllegalArgumentException(parameter + " must not make 65534 (nobody) a sandbox id, got " + first
                    + " with sandboxIdCount " + count);
        }
        for (String line : database) {
            String[] f = line.split(":", -1);
            if (f.length < 3) {
                continue;
            }
            try {
                long id = Long.parseLong(f[2].strip());
                if (id >= first && id <= last) {
                    throw new IllegalArgumentException(parameter + " must be ids no user or group has, but " + id
                            + " (of " + first + ".." + last + ") is " + f[0] + "'s");
                }
            } catch (NumberFormatException e) {
                // not an entry
            }
        }
    }

    /**
     * @param ranges the lines of {@code /etc/subuid} or {@code /etc/subgid}: {@code owner:first:count}
     * @throws IllegalArgumentException naming {@code parameter} if the block overlaps a range
     *     delegated to a user's containers (their uid 0 would be one of ours)
     */
    static void checkSubordinateIds(String parameter, int first, int count, List<String> ranges) {
        long last = (long) first + count - 1;
        for (String line : ranges) {
            String[] f = line.split(":", -1);
            if (f.length < 3) {
                continue;
            }
            try {
                long start = Long.parseLong(f[1].strip());
                long end = start + Long.parseLong(f[2].strip()) - 1;
                if (start <= last && first <= end) {
                    throw new IllegalArgumentException(parameter + " must be ids no user's containers are given, but "
                            + first + ".." + last + " overlaps " + f[0] + "'s subordinate ids " + start + ".." + end);
                }
            } catch (NumberFormatException e) {
                // not a range
            }
        }
    }

    static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p, StandardCharsets.UTF_8);
        } catch (IOException | UncheckedIOException e) {
            return List.of(); // no database: no names to clash with
        }
    }
}
