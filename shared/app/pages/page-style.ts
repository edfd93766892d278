/** The style sheet of the realm's pages: the layout's (`shared/kernel/html/layout.ts`), one for every page. */
export { PAGE_STYLE } from '../../kernel/html/layout';
