package dev.toolyard.benchmarks.report;

/**
 * One figure from the JMH results: a score, its error (the half-width of JMH's 99.9% confidence
 * interval; NaN when there were too few iterations to have one) and its unit.
 */
record Measured(String benchmark, double score, double error, String unit) {
    boolean hasError() {
        return !Double.isNaN(error) && !Double.isInfinite(error);
    }

    /** @return this figure in {@code target}'s unit, or {@code null} if the two units do not convert */
    Measured in(String target) {
        if (unit.equals(target)) {
            return this;
        }
        double factor = Units.factor(unit, target);
        return Double.isNaN(factor) ? null : new Measured(benchmark, score * factor, error * factor, target);
    }
}
