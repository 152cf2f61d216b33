package dev.toolyard;

/** Stage {@link Stage#EGRESS}: the tool's egress class must be within the invocation's ceiling ({@code egress_not_permitted}). */
final class EgressCheck implements Check<ParsedArgs, ParsedArgs> {
    @Override
    public Stage stage() {
        return Stage.EGRESS;
    }

    @Override
    public ParsedArgs apply(ParsedArgs in) {
        EgressClass egress = in.spec().egress();
        EgressClass ceiling = in.call().context.egressCeiling();
        if (ceiling.permits(egress)) {
            return in;
        }
        return in.call().refuse(Reason.EGRESS_NOT_PERMITTED,
                "the tool's egress class " + egress + " is above this invocation's ceiling " + ceiling);
    }
}
