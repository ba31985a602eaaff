// The lamp finder: a client-side application.  Every page of /app/ is the same empty
// shell; this script builds its title, text and links from the table below, so a
// crawler sees them only if it runs scripts.  /app/compare.html gets its canonical
// from here, and /app/live.html reads a stock feed that never ends (it never settles).
(function () {
  "use strict";
  var routes = {
    "/app/": {
      title: "Lamp finder",
      text: "Answer three questions and we suggest a lamp.",
      links: [["/app/desk.html", "Desk lamps"], ["/app/floor.html", "Floor lamps"],
              ["/app/compare.html", "Compare"], ["/app/live.html", "Live stock"]]
    },
    "/app/desk.html": {
      title: "Desk lamp finder",
      text: "For reading, for working, for both.",
      links: [["/app/", "Lamp finder"], ["/app/desk-oak.html", "Oak desk lamps"]]
    },
    "/app/desk-oak.html": {
      title: "Oak desk lamps",
      text: "Every oak lamp we make, by height.",
      links: [["/app/desk.html", "Desk lamp finder"]]
    },
    "/app/floor.html": {
      title: "Floor lamp finder",
      text: "Arc, tripod or column.",
      links: [["/app/", "Lamp finder"]]
    },
    "/app/compare.html": {
      title: "Compare lamps",
      text: "Side by side; the desk lamp finder is the page to index.",
      links: [["/app/desk.html", "Desk lamp finder"]],
      canonical: "/app/desk.html"
    },
    "/app/live.html": {
      title: "Live stock",
      text: "Stock levels, updated as they change.",
      links: [["/app/", "Lamp finder"]],
      live: true
    }
  };
  function show(pathname) {
    var path = pathname === "/app/index.html" ? "/app/" : pathname;
    var route = routes[path];
    var root = document.getElementById("app");
    if (!route || !root) { return; }
    root.textContent = "";
    document.title = route.title + " | Northwind Lamps";
    var h1 = document.createElement("h1");
    h1.textContent = route.title;
    var p = document.createElement("p");
    p.textContent = route.text;
    var nav = document.createElement("nav");
    route.links.forEach(function (link) {
      var a = document.createElement("a");
      a.href = link[0];
      a.textContent = link[1];
      a.addEventListener("click", function (event) {  // client-side routing
        event.preventDefault();
        history.pushState({}, "", link[0]);
        show(link[0]);
      });
      nav.appendChild(a);
      nav.appendChild(document.createTextNode(" "));
    });
    root.appendChild(h1);
    root.appendChild(p);
    root.appendChild(nav);
    var old = document.querySelector("link[rel=canonical]");
    if (old) { old.remove(); }
    if (route.canonical) {
      var canonical = document.createElement("link");
      canonical.rel = "canonical";
      canonical.href = route.canonical;
      document.head.appendChild(canonical);
    }
    if (route.live) {
      var stock = document.createElement("p");
      root.appendChild(stock);
      fetch("/app/stock-feed").then(function (response) {
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        function next() {
          return reader.read().then(function (part) {
            if (part.done) { return; }
            var lines = decoder.decode(part.value).trim().split("\n");
            stock.textContent = lines[lines.length - 1];
            return next();
          });
        }
        return next();
      });
    }
  }
  window.addEventListener("popstate", function () { show(location.pathname); });
  show(location.pathname);
})();
