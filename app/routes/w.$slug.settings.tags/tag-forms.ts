// The form an answer of the tags page belongs to (route.tsx shows it there): a tag's (its id), the new
// tag's, or the setting's.
export const NEW_TAG = 'new';
export const SETTING = 'setting';
