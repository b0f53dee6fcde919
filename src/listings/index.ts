// The listings' face: what every public list shares (docs/listings.md). Modules import from here only.

export { HEAP_PER_JSON_BYTE, ListingCache, type NextChange } from './cache.js';
export {
  chordToMetres,
  countNearest,
  EARTH_RADIUS_M,
  earthCube,
  earthPoint,
  kmOfChordSql,
  metresToChord,
} from './earth.js';
export {
  compactJson,
  earliestOf,
  isoSql,
  JsonItems,
  sendJsonData,
  sendJsonListing,
  type NearbyJsonRow,
} from './json.js';
export { nearestPage, type Ranked } from './nearest.js';
export {
  assertListingPage,
  LISTING_TOTAL_CAP,
  listingMeta,
  ListingMetaSchema,
  maxListingPage,
  metaOf,
  OkListing,
  okListing,
  RANKED_CANDIDATES_CAP,
  type ListingMeta,
} from './page.js';
export {
  countCapped,
  listedColumns,
  rankedPage,
  rankedQuery,
  selectRows,
  type ListRows,
} from './queries.js';
export { searchList, type ListSearch, type SearchedList } from './search.js';
export {
  foldText,
  searchTerms,
  searchWords,
  textMatch,
  TYPO_FALLBACK_BELOW,
  withBitmapScans,
  type SearchTerms,
  type WordMatch,
  type WordQueries,
} from './words.js';
export {
  installListingDrops,
  listingWrites,
  SUPPLIER_LISTINGS,
  type ListingScope,
  type ListingWrite,
} from './writes.js';
