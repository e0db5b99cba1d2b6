#!/usr/bin/env bash
# Builds the Windows installer dist/loadscope-VERSION-win64.msi with wixl from
# the zip scripts/windows/build.sh packs (or the folder it was packed from):
# per user under %LOCALAPPDATA%\Programs\Loadscope, with a Start-menu entry.
#   package-msi.sh ZIP_OR_FOLDER [OUT.msi]            details: docs/windows.md
# Prints the installer's path as its last line (stdout); messages on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
LS_TAG=package-msi
. "$root/scripts/lib.sh"

src=${1:?the zip (dist/loadscope-VERSION-win64.zip) or its folder}
for tool in wixl wixl-heat; do
  command -v "$tool" >/dev/null || die "$tool not found (packages wixl and msitools: scripts/setup.sh --tests)"
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/loadscope-msi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

if [ -d "$src" ]; then
  tree=$(cd "$src" && pwd)
else
  [ -f "$src" ] || die "$src: no such zip or folder"
  unzip -q "$src" -d "$tmp/unzipped" || die "$src: not a zip unzip can read"
  tree=$(ls -d "$tmp"/unzipped/loadscope-*-win64 2>/dev/null | head -n 1)
  [ -n "$tree" ] || die "$src: no loadscope-VERSION-win64/ folder inside"
fi
name=$(basename "$tree")
[[ $name =~ ^loadscope-([0-9]+\.[0-9]+\.[0-9]+)-win64$ ]] || die "$tree: the folder is not named loadscope-MAJOR.MINOR.PATCH-win64"
version=${BASH_REMATCH[1]}
[ -f "$tree/bin/loadscope.exe" ] || die "$tree: no bin/loadscope.exe"
out=$(realpath -m "${2:-$root/dist/$name.msi}")
mkdir -p "$(dirname "$out")"

# Every file of the tree as a component under INSTALLDIR (wixl-heat keeps
# the folders); the Start-menu shortcut and the per-user key path are ours.
find "$tree" -type f | LC_ALL=C sort |
  wixl-heat --prefix "$tree/" --var var.SourceDir --directory-ref INSTALLDIR \
    --component-group CG.files --win64 > "$tmp/files.wxs"

# The upgrade code never changes: a newer installer replaces an older one.
cat > "$tmp/loadscope.wxs" <<W
<?xml version="1.0" encoding="utf-8"?>
<Wix xmlns="http://schemas.microsoft.com/wix/2006/wi">
  <Product Id="*" Name="Loadscope" Language="1033" Codepage="65001" Version="$version"
           Manufacturer="The Loadscope developers" UpgradeCode="6c1f0b7e-3d2a-4f58-9a0e-5b7d2c4e8f13">
    <Package InstallerVersion="500" Compressed="yes" InstallScope="perUser"
             Description="Loadscope $version" Comments="Measures and tunes how a data loader feeds a GPU"/>
    <MajorUpgrade DowngradeErrorMessage="A newer Loadscope is already installed."/>
    <Media Id="1" Cabinet="loadscope.cab" EmbedCab="yes"/>
    <Property Id="ARPNOMODIFY" Value="1"/>
    <Property Id="ARPCOMMENTS" Value="Measures and tunes how a data loader feeds a GPU"/>

    <Directory Id="TARGETDIR" Name="SourceDir">
      <Directory Id="LocalAppDataFolder">
        <Directory Id="LsPrograms" Name="Programs">
          <Directory Id="INSTALLDIR" Name="Loadscope"/>
        </Directory>
      </Directory>
      <Directory Id="ProgramMenuFolder"/>
    </Directory>

    <DirectoryRef Id="ProgramMenuFolder">
      <Component Id="StartMenuShortcut" Guid="2f9c4a61-8b0d-4e3f-a7c5-1d6e9b2a4c70" Win64="yes">
        <Shortcut Id="LoadscopeShortcut" Name="Loadscope" Description="Measure and tune how a data loader feeds a GPU"
                  Target="[INSTALLDIR]bin\\loadscope.exe" WorkingDirectory="INSTALLDIR"/>
        <RegistryValue Root="HKCU" Key="Software\\Loadscope" Name="installed" Type="integer" Value="1" KeyPath="yes"/>
      </Component>
    </DirectoryRef>
    <DirectoryRef Id="INSTALLDIR">
      <Component Id="InstallDirRemoval" Guid="8a3e5d27-6c14-4b9f-b2e0-7f4c1a9d3e65" Win64="yes">
        <RegistryValue Root="HKCU" Key="Software\\Loadscope" Name="InstallDir" Type="string" Value="[INSTALLDIR]" KeyPath="yes"/>
        <RemoveFolder Id="RemoveInstallDir" On="uninstall"/>
      </Component>
    </DirectoryRef>

    <Feature Id="Complete" Level="1" Title="Loadscope">
      <ComponentGroupRef Id="CG.files"/>
      <ComponentRef Id="StartMenuShortcut"/>
      <ComponentRef Id="InstallDirRemoval"/>
    </Feature>
  </Product>
</Wix>
W
# wixl reads the sources by relative paths only.
(cd "$tree" && wixl --arch x64 -D SourceDir=. -D Win64=yes -o "$out" "$tmp/loadscope.wxs" "$tmp/files.wxs") ||
  die "wixl failed on $tree"
warn "built $out ($(du -k "$out" | cut -f1) KiB, $(grep -c '<File ' "$tmp/files.wxs") files, version $version)"
echo "$out"
