package dev.toolyard.contracts;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * An HTTP proxy for one request, run by the curl test in the sandbox's own network namespace: it
 * binds 127.0.0.1 only, accepts one connection and only from a loopback address, answers it with
 * {@code 200} and the given body without forwarding anything, then exits. It prints {@code ready} once
 * listening and {@code answered REQUEST-LINE} after replying. Uses {@code java.base} only. Arguments:
 * port, body.
 */
final class LoopbackHttpResponder {
    private LoopbackHttpResponder() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        byte[] body = args[1].getBytes(StandardCharsets.UTF_8);
        InetAddress loopback = InetAddress.getByAddress(new byte[] {127, 0, 0, 1});
        try (ServerSocket server = new ServerSocket()) {
            server.bind(new InetSocketAddress(loopback, port));
            server.setSoTimeout(60_000); // never lingers: the test destroys it sooner anyway
            System.out.println("ready");
            System.out.flush();
            try (Socket s = server.accept()) {
                if (!s.getInetAddress().isLoopbackAddress()) {
                    System.out.println("refused a connection from a non-loopback address");
                    return;
                }
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                ByteArrayOutputStream head = new ByteArrayOutputStream();
                int tail = 0;
                for (int c; tail != 0x0d0a0d0a && head.size() < 16_384 && (c = in.read()) >= 0; ) {
                    head.write(c);
                    tail = (tail << 8) | c;
                }
                String requestLine = head.toString(StandardCharsets.ISO_8859_1).split("\r\n", 2)[0];
                OutputStream out = s.getOutputStream();
                out.write(("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: " + body.length
                        + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
                out.write(body);
                out.flush();
                System.out.println("answered " + requestLine);
                System.out.flush();
            }
        }
    }
}
