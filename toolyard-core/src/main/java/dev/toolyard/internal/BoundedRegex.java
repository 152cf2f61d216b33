package dev.toolyard.internal;

import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import com.networknt.schema.regex.RegularExpressions;
import java.util.regex.Pattern;

/**
 * JSON Schema {@code pattern} and {@code patternProperties} with a work budget. The patterns come from
 * the application, but the text they run on comes from the model, and {@code java.util.regex}
 * backtracks: a pattern such as {@code ^(a+)+$} can take exponential time on a crafted string. Each
 * match reads its input through a view that counts character reads and gives up past a budget
 * proportional to the input, so validation is bounded work whatever the model sends; giving up makes
 * the arguments invalid. Same dialect as the validator's JDK factory. Thread-safe.
 */
final class BoundedRegex implements RegularExpressionFactory {
    /** Character reads allowed per match: this many per input character, plus a floor. */
    static final long READS_PER_CHAR = 1_000;
    static final long READS_FLOOR = 100_000;

    static final BoundedRegex INSTANCE = new BoundedRegex();

    private BoundedRegex() {}

    /** Thrown when a match exceeds its budget. */
    static final class BudgetExceeded extends RuntimeException {
        private static final long serialVersionUID = 1L;

        BudgetExceeded() {
            super("a pattern took too many steps on this input", null, false, false);
        }
    }

    @Override
    public RegularExpression getRegularExpression(String regex) {
        Pattern pattern = Pattern.compile(
                RegularExpressions.replaceLongformCharacterProperties(RegularExpressions.replaceDollarAnchors(regex)));
        return value -> pattern.matcher(new Budgeted(value, READS_FLOOR + READS_PER_CHAR * value.length())).find();
    }

    /** A read-only view of a string that fails once it has been read too often. */
    private static final class Budgeted implements CharSequence {
        private final String text;
        private final int offset;
        private final int length;
        private final long[] remaining;

        Budgeted(String text, long budget) {
            this(text, 0, text.length(), new long[] {budget});
        }

        private Budgeted(String text, int offset, int length, long[] remaining) {
            this.text = text;
            this.offset = offset;
            this.length = length;
            this.remaining = remaining;
        }

        @Override
        public char charAt(int index) {
            if (--remaining[0] < 0) {
                throw new BudgetExceeded();
            }
            return text.charAt(offset + index);
        }

        @Override
        public int length() {
            return length;
        }

        @Override
        public CharSequence subSequence(int start, int end) {
            return new Budgeted(text, offset + start, end - start, remaining);
        }

        @Override
        public String toString() {
            return text.substring(offset, offset + length);
        }
    }
}
