/** HTML building blocks every page uses: escaping of any text not written by us, and safe JSON data islands. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/**
 * Data for a page's script, in a `<script type="application/json">` block: not executed, so the CSP needs no
 * exception, and `<` escaped so no text can close the element.
 */
export function jsonIsland(id: string, data: unknown): string {
  const json = JSON.stringify(data).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
  return `<script type="application/json" id="${escapeHtml(id)}">${json}</script>`;
}
