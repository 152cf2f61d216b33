/** The {@code toolyard} command: doctor, demo, call, records, contract, policy. An application, not part of the library. */
module dev.toolyard.cli {
    requires dev.toolyard.core;
    requires dev.toolyard.sandbox;
    requires dev.toolyard.builtins;
    requires dev.toolyard.store.jdbc;
    requires dev.toolyard.mcp;
    requires reactor.core;
    requires dev.toolyard.contracts;
    requires dev.toolyard.policy;
    requires info.picocli;
    requires jdk.httpserver;

    opens dev.toolyard.cli to info.picocli;
}
