import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import com.amazonaws.services.dynamodbv2.local.main.ServerRunner;
import com.amazonaws.services.dynamodbv2.local.server.DynamoDBProxyServer;

/**
 * DynamoDB Local on one address only. Its own main (ServerRunner) has no bind option: the Jetty server it
 * builds listens on every interface, so anyone who reaches the machine reads every tenant's data. This does
 * what ServerRunner.main does (same command line: -port, -dbPath or -inMemory, -sharedDb, -disableTelemetry)
 * but binds each of the Jetty server's connectors to the host in the system property dynamodb.host before
 * starting it. Run as a single-file source program: java -cp DynamoDBLocal.jar DynamoDBLoopback.java ARGS.
 */
public class DynamoDBLoopback {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    Field field = DynamoDBProxyServer.class.getDeclaredField("server");
    field.setAccessible(true);
    Server jetty = (Server) field.get(proxy);
    int bound = 0;
    for (Connector connector : jetty.getConnectors()) {
      if (connector instanceof ServerConnector) {
        ((ServerConnector) connector).setHost(host);
        bound++;
      }
    }
    // A Jetty that grew another kind of connector would listen unbound: refuse to start rather than expose it.
    if (bound == 0 || bound != jetty.getConnectors().length) throw new IllegalStateException("DynamoDB Local's Jetty connectors could not all be bound to " + host);
    proxy.start();
    System.out.println("DynamoDB Local listening on " + host);
  }
}
