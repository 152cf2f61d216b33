package dev.toolyard.benchmarks.report;

import java.util.Locale;

/**
 * One target of a row, judged on the figure and its baseline from the same run. The verdict is taken
 * on the point estimates; when the limit lies inside the error of the compared quantity the verdict
 * says so, because on a shared 2-core machine such a verdict can flip from one run to the next.
 */
sealed interface Target {
    /** @return the target as the issue states it */
    String text();

    /** @return the judged quantity, or {@code null} when what it needs was not measured */
    Judged judge(Measured figure, Measured baseline);

    /** The compared quantity, its error, the limit, and whether the limit was met. */
    record Judged(double value, double error, String unit, boolean met, boolean withinError) {
        String verdict() {
            return (met ? "met" : "missed") + (withinError ? " (within error)" : "");
        }
    }

    private static Judged judged(double value, double error, String unit, double limit, boolean atMost) {
        boolean met = atMost ? value <= limit : value >= limit;
        boolean within = !Double.isNaN(error) && Math.abs(value - limit) <= error;
        return new Judged(value, error, unit, met, within);
    }

    static String number(double v) {
        double a = Math.abs(v);
        if (a >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        if (a >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        if (a >= 0.1) {
            return String.format(Locale.ROOT, "%.2f", v);
        }
        return String.format(Locale.ROOT, "%.4f", v);
    }

    /** The figure itself is at most {@code limit} in {@code unit}. */
    record AtMost(double limit, String unit) implements Target {
        public String text() {
            return "≤ " + number(limit) + " " + Units.display(unit);
        }

        public Judged judge(Measured figure, Measured baseline) {
            Measured f = figure.in(unit);
            return f == null ? null : judged(f.score(), f.error(), unit, limit, true);
        }
    }

    /** The figure itself is at least {@code limit} in {@code unit}. */
    record AtLeast(double limit, String unit) implements Target {
        public String text() {
            return "≥ " + number(limit) + " " + Units.display(unit);
        }

        public Judged judge(Measured figure, Measured baseline) {
            Measured f = figure.in(unit);
            return f == null ? null : judged(f.score(), f.error(), unit, limit, false);
        }
    }

    /** The figure exceeds the baseline by at most {@code limit} in {@code unit}. */
    record OverheadAtMost(double limit, String unit) implements Target {
        public String text() {
            return "overhead ≤ " + number(limit) + " " + Units.display(unit);
        }

        public Judged judge(Measured figure, Measured baseline) {
            Measured f = figure.in(unit);
            Measured b = baseline == null ? null : baseline.in(unit);
            if (f == null || b == null) {
                return null;
            }
            return judged(f.score() - b.score(), Math.hypot(f.error(), b.error()), unit, limit, true);
        }
    }

    /** figure / baseline is at most {@code limit}; {@code strict} for "faster than". */
    record RatioAtMost(double limit, boolean strict) implements Target {
        public String text() {
            return strict && limit == 1.0 ? "faster than the baseline (ratio < 1)" : "ratio ≤ " + number(limit);
        }

        public Judged judge(Measured figure, Measured baseline) {
            double[] r = Row.ratio(figure, baseline);
            if (r == null) {
                return null;
            }
            Judged j = judged(r[0], r[1], "×", limit, true);
            return strict && r[0] == limit ? new Judged(r[0], r[1], "×", false, j.withinError()) : j;
        }
    }

    /** figure / baseline is at least {@code limit}. */
    record RatioAtLeast(double limit) implements Target {
        public String text() {
            return "ratio ≥ " + number(limit);
        }

        public Judged judge(Measured figure, Measured baseline) {
            double[] r = Row.ratio(figure, baseline);
            return r == null ? null : judged(r[0], r[1], "×", limit, false);
        }
    }
}
