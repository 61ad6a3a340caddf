// The demo's links (examples/c/demo.c) through the Java binding: the same table, the same rule, the same answers.
// `make test-java` runs it and checks that its output is examples/c/demo.expected, byte for byte.

import dev.linkrouter.LinkRouterException;
import dev.linkrouter.Match;
import dev.linkrouter.Route;
import dev.linkrouter.Router;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

public final class Demo {
    private static final List<Route> ROUTES = List.of(
        // In-app deep links.
        new Route("shop://product/:id", "ProductPage"),
        new Route("shop://product/:id/reviews", "ReviewsPage"),
        new Route("shop://product/new", "NewArrivalsPage"),          // a literal beats :id, whatever the order
        new Route("shop://user/:uid/orders/:order", "OrderPage"),
        new Route("shop://search", "SearchPage"),
        new Route("shop://help/*topic", "HelpCenter"),                // the rest of the path, as written
        // Web links that the app opens natively; any other web link goes to a web view.
        new Route("https://www.shop.example.com/p/:id", "ProductPage"),
        new Route("https://www.shop.example.com/u/:uid/orders/:order", "OrderPage"),
        new Route("https://*page", "WebView"),                        // any other https link: host and path
        new Route("*://share/:id", "SharePage"),                      // share links, whatever the scheme
        // XKRouter-style links: the host says whether login is needed, the query names the target class.
        new Route("xksquare://com.dynamic", "OpenWithoutLogin"),
        new Route("xksquare://com.authDynamic", "OpenAfterLogin"));

    private static final List<String> LINKS = List.of(
        "shop://product/8841?ref=push&campaign=black%20friday",
        "shop://product/new",
        "SHOP://Product/8841/reviews#latest",
        "shop://user/u-17/orders/A%2F2026-1138",
        "shop://search?q=%E5%8E%9F%E5%AD%90%E5%BC%B9&sort=price&sort=rating",
        "shop://help/returns/how-to",
        "https://WWW.shop.example.com/p/8841?utm_source=mail",
        "https://www.shop.example.com/u/u-17/orders/1138",
        "https://blog.example.com/2026/11/launch",
        "xksquare://com.dynamic?targetclass=RouterTestViewController&name=%E4%BD%93%E8%B4%B4&num=2",
        "xksquare://com.authDynamic?targetclass=OrderList&info[nickname]=x&info[level]=3",
        "myapp://share/77",
        "shop://nowhere/at/all",
        "not a url",
        "shop://campaign/winter");                                    // through the rewrite rule

    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        try (Router router = new Router()) {
            router.addMany(ROUTES);
            // A rule from the server: old campaign links now open the search page.
            router.addRewrite("^shop://campaign/(\\w+)", "shop://search?q=$1&from=campaign");

            out.printf("%d routes, 1 rewrite rule%n%n", ROUTES.size());
            for (String link : LINKS) {
                out.println(link);
                Optional<Match> found;
                try {
                    found = router.resolve(link);
                } catch (LinkRouterException e) {
                    out.printf("  -> %s: %s%n", Router.errstr(e.code()), e.getMessage());
                    continue;
                }
                if (found.isEmpty()) {
                    out.printf("  -> %s%n", Router.errstr(LinkRouterException.NOMATCH));
                    continue;
                }
                Match m = found.get();
                StringBuilder line = new StringBuilder("  -> " + m.target() + "  (" + m.pattern() + ")");
                m.params().forEach((name, value) -> line.append("  ").append(name).append('=').append(value));
                if (!m.fragment().isEmpty()) {
                    line.append("  #").append(m.fragment());
                }
                if (!m.rewritten().equals(m.url())) {
                    line.append("  [rewritten: ").append(m.rewritten()).append(']');
                }
                out.println(line);
            }
        }
    }
}
