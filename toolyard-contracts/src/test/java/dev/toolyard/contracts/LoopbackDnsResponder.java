package dev.toolyard.contracts;

import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A DNS server for one query, run by the dig test in the sandbox's own network namespace: it binds
 * 127.0.0.1 only, answers one query (an {@code A} record with the given address, an empty answer for
 * any other type) and only if it came from a loopback address, then exits. It prints {@code ready}
 * once bound and {@code answered NAME TYPE} after replying. Uses {@code java.base} only, so it runs
 * from the test classes directory alone. Arguments: port, answer address (a dotted quad).
 */
final class LoopbackDnsResponder {
    private LoopbackDnsResponder() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        byte[] address = dottedQuad(args[1]);
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(loopback, port))) {
            socket.setSoTimeout(60_000); // never lingers: the test destroys it sooner anyway
            System.out.println("ready");
            System.out.flush();
            byte[] query = new byte[512];
            DatagramPacket in = new DatagramPacket(query, query.length);
            socket.receive(in);
            if (!in.getAddress().isLoopbackAddress()) {
                System.out.println("ignored a query from a non-loopback address");
                return;
            }
            int end = 12;
            StringBuilder name = new StringBuilder();
            while (query[end] != 0) {
                int length = query[end] & 0xff;
                name.append(new String(query, end + 1, length, StandardCharsets.US_ASCII)).append('.');
                end += length + 1;
            }
            end++; // the root label
            int type = ((query[end] & 0xff) << 8) | (query[end + 1] & 0xff);
            end += 4; // type and class
            boolean a = type == 1;
            byte[] reply = new byte[end + (a ? 16 : 0)];
            System.arraycopy(query, 0, reply, 0, end);
            reply[2] = (byte) (0x84 | (query[2] & 0x01)); // a response, authoritative, RD as asked
            reply[3] = 0; // no error, no recursion available
            reply[4] = 0;
            reply[5] = 1; // one question
            reply[6] = 0;
            reply[7] = (byte) (a ? 1 : 0);
            for (int i = 8; i < 12; i++) {
                reply[i] = 0; // no authority, no additional records (the query's EDNS record is not echoed)
            }
            if (a) {
                byte[] record = {(byte) 0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 0x01, 0x2c, 0, 4,
                        address[0], address[1], address[2], address[3]}; // the question's name, A, IN, TTL 300
                System.arraycopy(record, 0, reply, end, record.length);
            }
            socket.send(new DatagramPacket(reply, reply.length, in.getSocketAddress()));
            System.out.println("answered " + name + " " + type);
            System.out.flush();
        }
    }

    private static byte[] dottedQuad(String text) {
        String[] parts = text.split("\\.");
        byte[] b = new byte[4];
        for (int i = 0; i < 4; i++) {
            b[i] = (byte) Integer.parseInt(parts[i]);
        }
        return b;
    }
}
