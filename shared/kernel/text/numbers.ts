/**
 * An integer with thousands separators (`1,048,576`), as `toLocaleString('en-US')` writes it. Messages
 * built as a module loads use this rather than `Intl`, whose locale data would otherwise be loaded at
 * every cold start.
 */
export const groupDigits = (value: number): string => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
