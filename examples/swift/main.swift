// The Swift API over the same core: `Router` and `Match`. Run it with `swift run swift-example`.
import LinkRouter

let router = Router()
do {
    // Routes: a pattern and a target (any string: a screen name, a handler id...). Order never matters.
    try router.add("app://user/:id", target: "UserPage")
    try router.add("app://user/me", target: "MyProfile")
    try router.add("app://files/*path", target: "Files")
    try router.add("https://www.example.com/p/:id", target: "Product", name: "product")
    // Many at once, all or none.
    try router.add([RouteSpec("app://settings", target: "Settings"),
                    RouteSpec("*://share/:id", target: "Share")])
    // A rewrite rule: old web links become app links before routing.
    try router.addRewrite("^https?://m\\.example\\.com/item/(\\d+)", target: "https://www.example.com/p/$1")

    for url in ["app://user/42?tab=posts", "app://user/me", "app://files/a/b.txt", "APP://Settings",
                "http://m.example.com/item/7?ref=mail", "mail://share/9", "app://nowhere"] {
        if let m = try router.resolve(url, extra: ["source": "example"]) {
            let params = m.orderedParams.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
            print("\(url) -> \(m.target) [\(params)]" + (m.rewritten != m.url ? " via \(m.rewritten)" : ""))
        } else {
            print("\(url) -> no match")
        }
    }

    // Bracket keys nest in the JSON view.
    if let m = try router.resolve("app://user/1?info[nickname]=x&tags[]=a&tags[]=b") {
        print(m.json)
    }

    // Errors are values with a stable code and a message.
    do {
        try router.add("app://user/:uid", target: "Duplicate")
    } catch {
        print("\(error.code): \(error.message)")
    }
    do {
        _ = try router.resolve("not a url")
    } catch {
        print("\(error.code): \(error.message)")
    }
} catch {
    print("unexpected: \(error)")
}
