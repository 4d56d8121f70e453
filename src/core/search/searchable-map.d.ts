// MiniSearch's radix tree is exported as `minisearch/SearchableMap` (package.json "exports"),
// which TypeScript's "node" module resolution does not read; esbuild does. Its types, by file.
declare module 'minisearch/SearchableMap' {
  import SearchableMap from 'minisearch/dist/es/SearchableMap';
  export default SearchableMap;
}
