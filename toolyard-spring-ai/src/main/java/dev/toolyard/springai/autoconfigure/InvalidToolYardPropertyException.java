package dev.toolyard.springai.autoconfigure;

import java.util.Objects;

/**
 * A {@code toolyard.*} property whose value the auto-configuration cannot run with. Thrown while the
 * application context starts, so the application never serves a call with it; Spring Boot's failure
 * analysis turns it into the "APPLICATION FAILED TO START" report naming {@link #property()},
 * the problem and {@link #action()}. Immutable.
 */
public final class InvalidToolYardPropertyException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /** The property's name. */
    private final String property;
    /** What is wrong with its value. */
    private final String problem;
    /** How to fix it. */
    private final String action;

    /**
     * @param property the property's name, such as {@code toolyard.workspace}; never {@code null}
     * @param problem what is wrong with its value; never {@code null}
     * @param action how to fix it; never {@code null}
     */
    InvalidToolYardPropertyException(String property, String problem, String action) {
        super(Objects.requireNonNull(property, "property") + " " + Objects.requireNonNull(problem, "problem")
                + ". " + Objects.requireNonNull(action, "action"));
        this.property = property;
        this.problem = problem;
        this.action = action;
    }

    /** @return the property's name; never {@code null} */
    public String property() {
        return property;
    }

    /** @return what is wrong, as a phrase following the property's name; never {@code null} */
    public String problem() {
        return problem;
    }

    /** @return how to fix it; never {@code null} */
    public String action() {
        return action;
    }
}
