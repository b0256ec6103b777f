// Where a release's archive is downloaded from: the one base the krew manifests' URIs are built from. It is
// package.json's config.releaseBaseUrl, or DS_ROLLOUT_RELEASE_URL when set (a fork, a mirror, a staging bucket);
// `{version}` in either stands for the package version. The archive's name is added to it.

/** The base URL (no trailing slash) for `version`, from package.json's config and the environment. */
export function releaseBaseUrl(pjson, env = process.env) {
  const template = env.DS_ROLLOUT_RELEASE_URL || pjson.config?.releaseBaseUrl;
  if (!template) throw new Error('no release URL: set config.releaseBaseUrl in package.json or DS_ROLLOUT_RELEASE_URL');
  const base = template.replaceAll('{version}', pjson.version).replace(/\/+$/, '');
  if (!/^https:\/\/[^/\s]+\/\S*$/.test(`${base}/`)) throw new Error(`the release URL "${base}" is not an https:// URL`);
  return base;
}

/** The archive's download URI: the base and the archive's file name. */
export function archiveUri(pjson, archiveName, env = process.env) {
  return `${releaseBaseUrl(pjson, env)}/${archiveName}`;
}
