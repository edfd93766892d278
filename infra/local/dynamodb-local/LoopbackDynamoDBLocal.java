import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * AWS's DynamoDB Local, started with its own command-line options, but listening on 127.0.0.1 and on
 * the port of the system property `loopback.port` (a free one when it is absent or 0): its CLI has no
 * bind address and refuses port 0, so the Jetty connector it built is rebound before it starts. Prints "listening <port>" once serving, and exits when its standard input
 * closes, so it never outlives the Node process that started it.
 */
public class LoopbackDynamoDBLocal {
  public static void main(String[] args) throws Exception {
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    if (proxy == null) System.exit(2);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server server = (Server) field.get(proxy);
    for (Connector connector : server.getConnectors()) {
      ServerConnector bound = (ServerConnector) connector;
      bound.setHost("127.0.0.1");
      bound.setPort(Integer.getInteger("loopback.port", 0));
    }
    proxy.start();
    ServerConnector first = (ServerConnector) server.getConnectors()[0];
    System.out.println("listening " + first.getLocalPort());
    System.out.flush();
    Thread watchdog = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // The parent never writes; end of input means it is gone.
        }
      } catch (Exception ignored) {
        // A broken pipe means the same.
      }
      Runtime.getRuntime().halt(0);
    });
    watchdog.setDaemon(true);
    watchdog.start();
    proxy.join();
  }
}
