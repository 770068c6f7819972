/** The lock-board families this package speaks; each has a folder with its codec and its driver. */
export const BoardFamily = {
  KerongCu48: 'kerong-cu48',
  KerongCu16: 'kerong-cu16',
  Winnsen: 'winnsen',
  Generic24: 'generic-24',
} as const;
export type BoardFamily = (typeof BoardFamily)[keyof typeof BoardFamily];
export const BOARD_FAMILIES = Object.values(BoardFamily) as [BoardFamily, ...BoardFamily[]];
