/** The JSON data island the server renders into a page (#page-data), parsed once. */
export function pageData<T>(): T | undefined {
  const island = document.getElementById('page-data');
  return island?.textContent ? (JSON.parse(island.textContent) as T) : undefined;
}
