; Tingji (听记) setup: one self-contained .exe, per-user install without admin rights.
;
; Built by installer/build.py, which passes:
;   /DVERSION=0.1.0             tingji.__version__
;   /DVI_VERSION=0.1.0.0        the same as four numbers (Windows version resource)
;   /DAPP_DIR=...\dist\tingji   the PyInstaller one-folder build (tingji.exe, tingji-gui.exe, _internal\)
;   /DOUT_FILE=...\Tingji-0.1.0-setup.exe
;   /DICON=...\assets\icon.ico  (optional: defaults to ..\assets\icon.ico)
;   /DNO_COMPRESS               (optional: store files uncompressed, for quick test builds)
;
; Installs to %LOCALAPPDATA%\Programs\Tingji, adds a Start menu shortcut and
; (optional) a desktop shortcut, and registers the uninstaller under HKCU. The
; uninstaller asks whether to keep the user's models and settings, which live in
; the user data folder (%LOCALAPPDATA%\Tingji, or TINGJI_HOME when set), never
; in the program folder.
;
; The MSVC runtime DLLs the app needs are deployed app-locally inside the
; program folder by build.py (a per-user, non-admin install cannot run
; vc_redist, which installs machine-wide), so nothing else is installed here.

; A 64-bit (and Unicode) setup: the app is x64 only, and Wine without its 32-bit part - what the
; test suite installs under - cannot start NSIS's default x86 stub (which still exits 0, having
; installed nothing). Debian's nsis package has this stub; the nsis.sf.net Windows zip does not.
Target amd64-unicode
ManifestDPIAware true
RequestExecutionLevel user

!ifndef VERSION
  !error "pass /DVERSION=x.y.z (installer/build.py does)"
!endif
!ifndef APP_DIR
  !error "pass /DAPP_DIR=<the PyInstaller dist\tingji folder>"
!endif
!ifndef VI_VERSION
  !define VI_VERSION "${VERSION}.0"
!endif
!ifndef OUT_FILE
  !define OUT_FILE "Tingji-${VERSION}-setup.exe"
!endif
!ifndef ICON
  !define ICON "${__FILEDIR__}\..\assets\icon.ico"
!endif

!define APP_NAME "Tingji"
!define PUBLISHER "Tingji developers"
!define GUI_EXE "tingji-gui.exe"
!define CLI_EXE "tingji.exe"
!define UNINSTALLER "uninstall.exe"
!define UNINST_KEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\Tingji"
!define APP_KEY "Software\Tingji"

!ifdef NO_COMPRESS
  SetCompress off
!else
  SetCompressor /SOLID lzma
  SetCompressorDictSize 64
!endif

Name "${APP_NAME} ${VERSION}"
Caption "$(CAPTION)"
OutFile "${OUT_FILE}"
InstallDir "$LOCALAPPDATA\Programs\Tingji"
InstallDirRegKey HKCU "${APP_KEY}" "InstallDir"
BrandingText "${APP_NAME} ${VERSION}"
ShowInstDetails nevershow
ShowUninstDetails show

!include "MUI2.nsh"
!include "LogicLib.nsh"
!include "FileFunc.nsh"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_ABORTWARNING
!define MUI_COMPONENTSPAGE_NODESC

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_COMPONENTS
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!define MUI_FINISHPAGE_RUN "$INSTDIR\${GUI_EXE}"
!insertmacro MUI_PAGE_FINISH

!define MUI_UNCONFIRMPAGE_TEXT_TOP "$(UNINSTALL_TOP)"
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "SimpChinese"

LangString CAPTION ${LANG_ENGLISH} "Tingji ${VERSION} Setup"
LangString CAPTION ${LANG_SIMPCHINESE} "听记 Tingji ${VERSION} 安装"
LangString SEC_APP ${LANG_ENGLISH} "Tingji (required)"
LangString SEC_APP ${LANG_SIMPCHINESE} "听记 Tingji（必需）"
LangString SEC_DESKTOP ${LANG_ENGLISH} "Desktop shortcut"
LangString SEC_DESKTOP ${LANG_SIMPCHINESE} "桌面快捷方式"
LangString APP_RUNNING ${LANG_ENGLISH} "Tingji is running. Close it (also its tray icon) and click Retry."
LangString APP_RUNNING ${LANG_SIMPCHINESE} "听记正在运行。请先关闭它（包括托盘图标），然后点击“重试”。"
LangString UNINSTALL_TOP ${LANG_ENGLISH} "Tingji will be removed from your computer. Your models, settings and transcription history stay in your user data folder unless you choose to delete them next; transcripts saved next to your files are never touched."
LangString UNINSTALL_TOP ${LANG_SIMPCHINESE} "将从您的电脑上删除听记。您的模型、设置和转写记录保留在用户数据文件夹中，除非您在下一步选择删除；保存在文件旁边的转写稿不会被改动。"
LangString DATA_KEPT ${LANG_ENGLISH} "Kept your models, settings and transcription history: $0"
LangString DATA_KEPT ${LANG_SIMPCHINESE} "已保留您的模型、设置和转写记录：$0"
LangString DATA_DELETED ${LANG_ENGLISH} "Deleted your models, settings and transcription history: $0"
LangString DATA_DELETED ${LANG_SIMPCHINESE} "已删除您的模型、设置和转写记录：$0"
LangString KEEP_DATA ${LANG_ENGLISH} "Keep your downloaded models, settings and transcription history?$\r$\n$\r$\n$0$\r$\n$\r$\nYes keeps them for a later install; No deletes them."
LangString KEEP_DATA ${LANG_SIMPCHINESE} "是否保留已下载的模型、设置和转写记录？$\r$\n$\r$\n$0$\r$\n$\r$\n选择“是”保留以便日后重新安装；选择“否”将其删除。"

VIProductVersion "${VI_VERSION}"
VIFileVersion "${VI_VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductName" "${APP_NAME}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "ProductVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileVersion" "${VERSION}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "FileDescription" "${APP_NAME} Setup"
VIAddVersionKey /LANG=${LANG_ENGLISH} "CompanyName" "${PUBLISHER}"
VIAddVersionKey /LANG=${LANG_ENGLISH} "LegalCopyright" "MIT License, ${PUBLISHER}"

; A running Tingji holds its executable open: it cannot be opened for writing
; until the app is closed. Checked before anything is touched.
!macro WAIT_UNTIL_CLOSED EXE
  ${Do}
    ${IfNot} ${FileExists} "$INSTDIR\${EXE}"
      ${Break}
    ${EndIf}
    ClearErrors
    FileOpen $R0 "$INSTDIR\${EXE}" a
    ${IfNot} ${Errors}
      FileClose $R0
      ${Break}
    ${EndIf}
    ${If} ${Cmd} `MessageBox MB_RETRYCANCEL|MB_ICONEXCLAMATION "$(APP_RUNNING)" /SD IDCANCEL IDCANCEL`
      Abort
    ${EndIf}
  ${Loop}
!macroend

Function .onInit
  SetShellVarContext current
FunctionEnd

Section "$(SEC_APP)" SEC_APP
  SectionIn RO
  !insertmacro WAIT_UNTIL_CLOSED "${GUI_EXE}"
  !insertmacro WAIT_UNTIL_CLOSED "${CLI_EXE}"
  SetOutPath "$INSTDIR"
  ; An upgrade replaces the whole library folder: stale libraries must not linger.
  RMDir /r "$INSTDIR\_internal"
  File /r "${APP_DIR}\*"
  WriteUninstaller "$INSTDIR\${UNINSTALLER}"

  CreateShortcut "$SMPROGRAMS\Tingji.lnk" "$INSTDIR\${GUI_EXE}" "" "$INSTDIR\${GUI_EXE}" 0

  WriteRegStr HKCU "${APP_KEY}" "InstallDir" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayName" "${APP_NAME}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayVersion" "${VERSION}"
  WriteRegStr HKCU "${UNINST_KEY}" "Publisher" "${PUBLISHER}"
  WriteRegStr HKCU "${UNINST_KEY}" "DisplayIcon" "$INSTDIR\${GUI_EXE},0"
  WriteRegStr HKCU "${UNINST_KEY}" "InstallLocation" "$INSTDIR"
  WriteRegStr HKCU "${UNINST_KEY}" "UninstallString" '"$INSTDIR\${UNINSTALLER}"'
  WriteRegStr HKCU "${UNINST_KEY}" "QuietUninstallString" '"$INSTDIR\${UNINSTALLER}" /S'
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoModify" 1
  WriteRegDWORD HKCU "${UNINST_KEY}" "NoRepair" 1
  ${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
  IntFmt $0 "0x%08X" $0
  WriteRegDWORD HKCU "${UNINST_KEY}" "EstimatedSize" "$0"
SectionEnd

Section "$(SEC_DESKTOP)" SEC_DESKTOP
  CreateShortcut "$DESKTOP\Tingji.lnk" "$INSTDIR\${GUI_EXE}" "" "$INSTDIR\${GUI_EXE}" 0
SectionEnd

Function un.onInit
  SetShellVarContext current
FunctionEnd

Section "Uninstall"
  !insertmacro WAIT_UNTIL_CLOSED "${GUI_EXE}"
  !insertmacro WAIT_UNTIL_CLOSED "${CLI_EXE}"
  Delete "$SMPROGRAMS\Tingji.lnk"
  Delete "$DESKTOP\Tingji.lnk"
  RMDir /r "$INSTDIR\_internal"
  Delete "$INSTDIR\${GUI_EXE}"
  Delete "$INSTDIR\${CLI_EXE}"
  Delete "$INSTDIR\${UNINSTALLER}"
  ; Only if empty: never wipe a folder the user pointed the install at.
  RMDir "$INSTDIR"
  DeleteRegKey HKCU "${UNINST_KEY}"
  DeleteRegKey HKCU "${APP_KEY}"

  ; The user data folder: models, settings, queue and dictation history, logs.
  ReadEnvStr $0 "TINGJI_HOME"
  StrCpy $1 "custom"
  ${If} $0 == ""
    StrCpy $0 "$LOCALAPPDATA\Tingji"
    StrCpy $1 "default"
  ${EndIf}
  ${If} ${FileExists} "$0\*.*"
    ; Silent uninstalls (/S) keep the data.
    MessageBox MB_YESNO|MB_ICONQUESTION "$(KEEP_DATA)" /SD IDYES IDYES keep_data
    DetailPrint "$(DATA_DELETED)"
    ${If} $1 == "default"
      RMDir /r "$0"
    ${Else}
      ; TINGJI_HOME may point anywhere: delete only what Tingji puts there.
      RMDir /r "$0\models"
      RMDir /r "$0\cache"
      RMDir /r "$0\logs"
      RMDir /r "$0\recordings"
      Delete "$0\settings.json"
      Delete "$0\settings.json.bad"
      Delete "$0\dictation.json"
      Delete "$0\catalog-overrides.json"
      Delete "$0\gui.lock"
      Delete "$0\tingji.sqlite3*"
      Delete "$0\dictation.sqlite3*"
      RMDir "$0"
    ${EndIf}
    Goto data_done
    keep_data:
    DetailPrint "$(DATA_KEPT)"
    data_done:
  ${EndIf}
SectionEnd
