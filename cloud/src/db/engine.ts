/** The two database engines the cloud runs on; its own module so that migrations need not import the opener. */
export type Engine = 'sqlite' | 'postgres';
