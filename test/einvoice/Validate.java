import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.xml.XMLConstants;
import javax.xml.transform.stream.StreamSource;
import javax.xml.validation.Schema;
import javax.xml.validation.SchemaFactory;
import javax.xml.validation.Validator;
import net.sf.saxon.s9api.Processor;
import net.sf.saxon.s9api.XPathCompiler;
import net.sf.saxon.s9api.XPathExecutable;
import net.sf.saxon.s9api.XPathSelector;
import net.sf.saxon.s9api.XdmDestination;
import net.sf.saxon.s9api.XdmItem;
import net.sf.saxon.s9api.XdmNode;
import net.sf.saxon.s9api.XsltExecutable;
import net.sf.saxon.s9api.XsltTransformer;
import org.xml.sax.ErrorHandler;
import org.xml.sax.SAXParseException;

/**
 * Checks many XML files against many rule sets in one JVM: compiled Schematron (XSLT producing
 * SVRL, run by Saxon-HE) and XML schemas (the JDK's own XSD validator). Each stylesheet and schema
 * is compiled once, however many files use it; files are checked on as many threads as the
 * machine has cores.
 *
 * Run by test/einvoice/validate (source-file mode, so it needs a JDK):
 *   java -cp Saxon-HE.jar Validate.java < manifest
 * or kept running by the tests (test/einvoice/tools.ts), fed batches that each end with a blank
 * line and are each answered by their lines and then a line "done":
 *   java -cp Saxon-HE.jar Validate.java --serve
 * Each manifest line is `id TAB kind TAB rules-file TAB xml-file`, kind `xslt` or `xsd`. Prints one
 * JSON object per line: {"id", "ok", "findings": [{"id", "flag", "location", "text"}], "error"}.
 * "ok" false with "error" means the check could not run (the caller reports exit 2).
 */
public class Validate {
  private static final Processor SAXON = new Processor(false);
  private static final Map<String, Future<XsltExecutable>> STYLESHEETS = new ConcurrentHashMap<>();
  private static final Map<String, Future<Schema>> SCHEMAS = new ConcurrentHashMap<>();
  private static ExecutorService compilers;

  public static void main(String[] args) throws Exception {
    int threads = Math.max(1, Runtime.getRuntime().availableProcessors());
    compilers = Executors.newFixedThreadPool(threads);
    ExecutorService checkers = Executors.newFixedThreadPool(threads);
    boolean serve = args.length > 0 && args[0].equals("--serve");
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      // Once: the whole manifest until the end of input. Serving: one batch per blank line, each
      // answered by its lines and then "done", with every stylesheet and schema compiled once for
      // all of them (the tests keep one JVM for their whole run).
      List<String[]> jobs = new ArrayList<>();
      for (String line; (line = in.readLine()) != null; ) {
        if (line.isBlank()) {
          if (serve) {
            run(jobs, checkers);
            System.out.print("done\n");
            System.out.flush();
            jobs.clear();
          }
          continue;
        }
        String[] job = line.split("\t", -1);
        if (job.length != 4) throw new IllegalArgumentException("manifest line needs 4 fields: " + line);
        jobs.add(job);
      }
      if (!serve) run(jobs, checkers);
    }
    checkers.shutdown();
    compilers.shutdown();
  }

  private static void run(List<String[]> jobs, ExecutorService checkers) throws Exception {
    // Start every compilation first: they are the slow part, and run side by side.
    for (String[] job : jobs) {
      if (job[1].equals("xslt")) stylesheet(job[2]);
      else schema(job[2]);
    }
    List<Future<String>> results = new ArrayList<>();
    for (String[] job : jobs) results.add(checkers.submit(() -> check(job)));
    StringBuilder out = new StringBuilder();
    for (Future<String> result : results) out.append(result.get()).append('\n');
    System.out.print(out);
    System.out.flush();
  }

  private static Future<XsltExecutable> stylesheet(String path) {
    return STYLESHEETS.computeIfAbsent(path, p -> compilers.submit(() -> SAXON.newXsltCompiler().compile(new StreamSource(new File(p)))));
  }

  private static Future<Schema> schema(String path) {
    return SCHEMAS.computeIfAbsent(
        path,
        p -> compilers.submit(() -> SchemaFactory.newInstance(XMLConstants.W3C_XML_SCHEMA_NS_URI).newSchema(new File(p))));
  }

  private static String check(String[] job) {
    String id = job[0];
    try {
      List<String> findings = job[1].equals("xslt") ? schematron(job[2], job[3]) : xsd(job[2], job[3]);
      return "{\"id\":" + json(id) + ",\"ok\":true,\"findings\":[" + String.join(",", findings) + "]}";
    } catch (Exception e) {
      Throwable cause = e.getCause() != null ? e.getCause() : e;
      return "{\"id\":" + json(id) + ",\"ok\":false,\"findings\":[],\"error\":" + json(String.valueOf(cause)) + "}";
    }
  }

  private static List<String> schematron(String rules, String file) throws Exception {
    XsltTransformer transformer = stylesheet(rules).get().load();
    XdmDestination svrl = new XdmDestination();
    transformer.setSource(new StreamSource(new File(file)));
    transformer.setDestination(svrl);
    transformer.transform();
    XPathCompiler xpath = SAXON.newXPathCompiler();
    xpath.declareNamespace("svrl", "http://purl.oclc.org/dsdl/svrl");
    XPathExecutable select = xpath.compile("//svrl:failed-assert | //svrl:successful-report");
    XPathSelector selector = select.load();
    selector.setContextItem(svrl.getXdmNode());
    List<String> findings = new ArrayList<>();
    for (XdmItem item : selector) {
      XdmNode node = (XdmNode) item;
      String kind = node.getNodeName().getLocalName();
      String flag = attribute(node, "flag");
      XPathSelector text = xpath.compile("string(svrl:text)").load();
      text.setContextItem(node);
      findings.add(
          finding(
              attribute(node, "id"),
              flag != null ? flag : (kind.equals("failed-assert") ? "fatal" : "information"),
              attribute(node, "location"),
              text.evaluateSingle().getStringValue().replaceAll("\\s+", " ").trim()));
    }
    return findings;
  }

  private static String attribute(XdmNode node, String name) {
    return node.getAttributeValue(new net.sf.saxon.s9api.QName(name));
  }

  private static List<String> xsd(String schemaFile, String file) throws Exception {
    Validator validator = schema(schemaFile).get().newValidator();
    List<String> findings = new ArrayList<>();
    validator.setErrorHandler(
        new ErrorHandler() {
          public void warning(SAXParseException e) {
            findings.add(finding("XSD", "warning", where(e), e.getMessage()));
          }

          public void error(SAXParseException e) {
            findings.add(finding("XSD", "fatal", where(e), e.getMessage()));
          }

          public void fatalError(SAXParseException e) {
            findings.add(finding("XSD", "fatal", where(e), e.getMessage()));
          }
        });
    try {
      validator.validate(new StreamSource(new File(file)));
    } catch (SAXParseException e) {
      // Reported through fatalError already.
    }
    return findings;
  }

  private static String where(SAXParseException e) {
    return "line " + e.getLineNumber() + ", column " + e.getColumnNumber();
  }

  private static String finding(String id, String flag, String location, String text) {
    return "{\"id\":" + json(id) + ",\"flag\":" + json(flag) + ",\"location\":" + json(location) + ",\"text\":" + json(text) + "}";
  }

  private static String json(String value) {
    if (value == null) return "null";
    StringBuilder s = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      switch (c) {
        case '"' -> s.append("\\\"");
        case '\\' -> s.append("\\\\");
        case '\n' -> s.append("\\n");
        case '\r' -> s.append("\\r");
        case '\t' -> s.append("\\t");
        default -> {
          if (c < 0x20) s.append(String.format("\\u%04x", (int) c));
          else s.append(c);
        }
      }
    }
    return s.append('"').toString();
  }
}
