package dev.toolyard.cli;

import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What {@code --since} accepts: an ISO-8601 instant with its offset ({@code 2026-12-01T07:00:00Z},
 * {@code 2026-12-01T08:00:00+01:00}), or an age: a whole number and a unit {@code s}, {@code m},
 * {@code h} or {@code d} ({@code 15m}), or an ISO-8601 duration ({@code PT15M}), counted back from now.
 * Stateless; thread-safe.
 */
final class Since {
    private static final Pattern AGE = Pattern.compile("(\\d{1,9})([smhd])");

    private Since() {}

    /**
     * @param text the option's value
     * @param now the instant an age counts back from
     * @return the earliest start to show
     * @throws Main.UserError if the text is none of the accepted forms, or an age is negative
     */
    static Instant parse(String text, Instant now) {
        String t = text.strip();
        try {
            Matcher m = AGE.matcher(t);
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                Duration age = switch (m.group(2)) {
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    default -> Duration.ofDays(n);
                };
                return now.minus(age);
            }
            if (t.startsWith("P") || t.startsWith("p")) {
                Duration age = Duration.parse(t);
                if (age.isNegative()) {
                    throw new Main.UserError("--since must not be a negative age, got '" + text + "'");
                }
                return now.minus(age);
            }
            return OffsetDateTime.parse(t).toInstant();
        } catch (DateTimeException | ArithmeticException e) {
            throw new Main.UserError("--since takes an instant such as 2026-12-01T07:00:00Z or an age such as 15m,"
                    + " 2h, 7d or PT90S; got '" + text + "'");
        }
    }
}
