#include "container.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"

static int
exists_under (const char *root, const char *rel)
{
  char path[1024];
  if (snprintf (path, sizeof path, "%s%s", root, rel) >= (int) sizeof path)
    return 0;
  return ls_fs_kind_of (path, NULL) != LS_FS_MISSING;
}

/* The kind named by PID 1's cgroup paths ("/docker/<id>",
 * "/kubepods/...", "/lxc/..."); NULL when none. Under cgroup v2 with a
 * private namespace the file says only "0::/": the marker files decide. */
static const char *
cgroup_kind (const char *root)
{
  static const struct {
    const char *needle, *kind;
  } kinds[] = {
    { "kubepods", "kubernetes" }, { "/docker", "docker" }, { "docker-", "docker" },
    { "/lxc", "lxc" },           { "containerd", "containerd" }, { "libpod", "podman" },
  };
  enum { CAP = 65536 };
  char path[1024];
  const char *found = NULL;
  if (snprintf (path, sizeof path, "%s/proc/1/cgroup", root) >= (int) sizeof path)
    return NULL;
  FILE *f = fopen (path, "r");
  char *text = f ? malloc (CAP) : NULL;
  if (text)
    {
      size_t n = fread (text, 1, CAP - 1, f);
      text[n] = '\0';
      for (size_t i = 0; !found && i < sizeof kinds / sizeof kinds[0]; i++)
        if (strstr (text, kinds[i].needle))
          found = kinds[i].kind;
      free (text);
    }
  if (f)
    fclose (f);
  return found;
}

/* The variable's value when it is a plain name; it is set by whoever
 * started the process, so anything else is not trusted as a kind. */
static int
plain_name (const char *s)
{
  size_t n = strlen (s);
  if (n == 0 || n > 31)
    return 0;
  for (size_t i = 0; i < n; i++)
    {
      char c = s[i];
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
        return 0;
    }
  return 1;
}

void
ls_container_detect_at (const char *root, const char *env_container, const char *env_kubernetes, char *out,
                        size_t len)
{
  const char *kind = "none";
  const char *cg;

  if (!root || strcmp (root, "/") == 0)
    root = "";
  if (env_container && plain_name (env_container))
    kind = env_container;
  else if (exists_under (root, "/.dockerenv"))
    kind = "docker";
  else if (exists_under (root, "/run/.containerenv"))
    kind = "podman";
  else if (env_kubernetes && env_kubernetes[0])
    kind = "kubernetes";
  else if ((cg = cgroup_kind (root)) != NULL)
    kind = cg;
  snprintf (out, len, "%s", kind);
}

void
ls_container_detect (char *out, size_t len)
{
  ls_container_detect_at ("/", getenv ("container"), getenv ("KUBERNETES_SERVICE_HOST"), out, len);
}
