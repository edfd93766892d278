/** The style sheet of the realm's pages (the account page, the sign-in pages): one, inline, allowed by its hash. */
export const PAGE_STYLE = `
:root{color-scheme:light dark;font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Hiragino Sans","Noto Sans JP",Meiryo,sans-serif;line-height:1.5}
body{margin:0;padding:2rem 1rem;background:Canvas;color:CanvasText}
main,nav{max-width:28rem;margin:0 auto}
h1{font-size:1.5rem;margin:0 0 1rem}h2{font-size:1.15rem;margin:2rem 0 .75rem}
label{display:block;font-weight:600;margin:1rem 0 .25rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font:inherit;border:1px solid GrayText;border-radius:.25rem}
input:focus,button:focus,a:focus{outline:3px solid Highlight;outline-offset:2px}
button{margin-top:1.25rem;padding:.6rem 1.2rem;font:inherit;font-weight:600;border:0;border-radius:.25rem;background:#1a56db;color:#fff;cursor:pointer}
button.secondary{background:transparent;color:inherit;border:1px solid GrayText}
.hint{font-size:.9rem;margin:.25rem 0 0}
.alert{padding:.75rem;border-radius:.25rem;border:2px solid #b3261e;margin:1rem 0}
.notice{padding:.75rem;border-radius:.25rem;border:2px solid #1e7b34;margin:1rem 0}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{font-weight:600}dd{margin:0;word-break:break-all}
nav{margin-top:2.5rem;font-size:.9rem}nav ul{list-style:none;padding:0;display:flex;gap:1rem;flex-wrap:wrap}
`.trim();
