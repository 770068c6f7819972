// Tests log through pino at "silent" unless LOG_LEVEL is set, so that output stays readable.
process.env.LOG_LEVEL ??= 'silent';
