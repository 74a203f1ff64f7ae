; The Windows installer's additions (electron-builder.yml: nsis.include).
;
; onnxruntime.dll (onnxruntime-node 1.30) needs the Microsoft Visual C++ 2015-2022 runtime,
; version 14.28 or later (MSVCP140.dll, MSVCP140_1.dll, MSVCP140_ATOMIC_WAIT.dll). Many
; Windows machines have it from another program; a fresh one may not, and then every model
; fails to load. So the installer carries Microsoft's redistributable and runs it when the
; runtime this machine reports is missing or older. It is installed once for the whole
; machine (it asks for administrator rights itself, once).
;
; The redistributable is not in the repository (Microsoft's licence allows shipping it with
; an application, not republishing it on its own): before `npm run package` on Windows, put
; Microsoft's current files in build/vcredist/ (docs/packaging.md):
;   vc_redist.x64.exe    https://aka.ms/vs/17/release/vc_redist.x64.exe
;   vc_redist.arm64.exe  https://aka.ms/vs/17/release/vc_redist.arm64.exe
; Without the one an installer needs, making it stops here with that instruction.

!define EQUIVOX_VCRT_MAJOR 14
!define EQUIVOX_VCRT_MINOR 28

; At build time: embed build/vcredist/vc_redist.<arch>.exe, or stop the build saying where it goes.
!macro equivoxEmbedVcRedist ARCH
  !if /FileExists "${BUILD_RESOURCES_DIR}\vcredist\vc_redist.${ARCH}.exe"
    File "/oname=$PLUGINSDIR\vc_redist.${ARCH}.exe" "${BUILD_RESOURCES_DIR}\vcredist\vc_redist.${ARCH}.exe"
  !else
    !error "build\vcredist\vc_redist.${ARCH}.exe is missing. The Windows installer carries the Visual C++ 2015-2022 runtime that onnxruntime needs: download https://aka.ms/vs/17/release/vc_redist.${ARCH}.exe into build\vcredist\ and package again (docs/packaging.md)."
  !endif
!macroend

; At install time: $R0 = 1 when the runtime for ARCH is installed at version >= 14.28, else 0.
; Microsoft's documented key, read in the 64-bit registry view (set by electron-builder for x64 and arm64).
!macro equivoxVcRuntimeIsCurrent ARCH
  StrCpy $R0 0
  ClearErrors
  ReadRegDWORD $R1 HKLM "SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\${ARCH}" "Installed"
  ReadRegDWORD $R2 HKLM "SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\${ARCH}" "Major"
  ReadRegDWORD $R3 HKLM "SOFTWARE\Microsoft\VisualStudio\14.0\VC\Runtimes\${ARCH}" "Minor"
  ${IfNot} ${Errors}
  ${AndIf} $R1 = 1
    ${If} $R2 > ${EQUIVOX_VCRT_MAJOR}
      StrCpy $R0 1
    ${ElseIf} $R2 = ${EQUIVOX_VCRT_MAJOR}
    ${AndIf} $R3 >= ${EQUIVOX_VCRT_MINOR}
      StrCpy $R0 1
    ${EndIf}
  ${EndIf}
!macroend

!macro equivoxInstallVcRuntime ARCH
  !insertmacro equivoxVcRuntimeIsCurrent ${ARCH}
  ${If} $R0 = 0
    DetailPrint "Installing the Microsoft Visual C++ runtime (${ARCH}) that the model engine needs"
    InitPluginsDir
    !insertmacro equivoxEmbedVcRedist ${ARCH}
    ; "runas": the redistributable installs machine-wide and needs administrator rights even
    ; when Equivox is installed for this user only.
    ExecShellWait "runas" "$PLUGINSDIR\vc_redist.${ARCH}.exe" "/install /quiet /norestart"
    !insertmacro equivoxVcRuntimeIsCurrent ${ARCH}
    ${If} $R0 = 0
      MessageBox MB_OK|MB_ICONEXCLAMATION "Equivox is installed, but the Microsoft Visual C++ runtime it needs to run models could not be installed (it needs administrator rights). Everything else works. To run models, install it from https://aka.ms/vs/17/release/vc_redist.${ARCH}.exe, then restart Equivox." /SD IDOK
    ${EndIf}
  ${EndIf}
!macroend

!macro customInstall
  ; An installer holds x64, arm64 or both (electron-builder defines APP_64 / APP_ARM64).
  !ifdef APP_ARM64
    ${If} ${IsNativeARM64}
      !insertmacro equivoxInstallVcRuntime arm64
    ${Else}
      !ifdef APP_64
        !insertmacro equivoxInstallVcRuntime x64
      !endif
    ${EndIf}
  !else
    !ifdef APP_64
      !insertmacro equivoxInstallVcRuntime x64
    !endif
  !endif
!macroend
