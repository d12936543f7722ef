// Typeset the formulas of the page with KaTeX, again after each page change. The
// arithmatex extension (generic mode) writes them as \( ... \) and \[ ... \].
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
  });
});
