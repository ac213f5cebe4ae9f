<?xml version='1.0' encoding='utf-8'?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>App</name>
    <message>
        <location filename="../app.py" line="86" />
        <source>Tingji is already running.</source>
        <translation>听记已在运行。</translation>
    </message>
</context>
<context>
    <name>DictationPanel</name>
    <message>
        <location filename="../dictation_panel.py" line="275" />
        <source>Dictation settings</source>
        <translation>听写设置</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="276" />
        <source>History</source>
        <translation>历史记录</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="277" />
        <source>Nothing dictated yet. What you dictate is kept here, with its recording.</source>
        <translation>还没有听写记录。听写的内容会连同录音保存在这里。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="278" />
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="278" />
        <source>Text</source>
        <translation>文本</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="280" />
        <source>Hotkey</source>
        <translation>快捷键</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="280" />
        <source>Mode</source>
        <translation>模式</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="280" />
        <source>Insert by</source>
        <translation>输入方式</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="280" />
        <source>Microphone</source>
        <translation>麦克风</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="281" />
        <source>Pre-roll</source>
        <translation>预录</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="281" />
        <source>Silence ends take</source>
        <translation>静音多久结束</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="281" />
        <source>Keep recordings</source>
        <translation>保留录音</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="283" />
        <source>Hold to talk</source>
        <translation>按住说话</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="283" />
        <source>Press to start, pause to stop</source>
        <translation>按一下开始，停顿即结束</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="284" />
        <source>Continuous (press to start and stop)</source>
        <translation>连续（按一下开始，再按一下停止）</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="287" />
        <source>Paste (clipboard restored afterwards)</source>
        <translation>粘贴（之后恢复剪贴板）</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="287" />
        <source>Type the characters</source>
        <translation>逐字键入</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="493" />
        <source>{0}. Use the Dictate button instead.</source>
        <translation>{0}。可以改用“开始听写”按钮。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="296" />
        <source>All</source>
        <translation>全部</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="457" />
        <source>Ready</source>
        <translation>就绪</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="328" />
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="291" />
        <source>Keep the microphone open between takes</source>
        <translation>两次听写之间保持麦克风打开</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="293" />
        <source>The first word is never cut, but the system shows the microphone as in use all the time.</source>
        <translation>第一个字不会被截掉，但系统会一直显示麦克风正在使用。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="294" />
        <source>How long a pause ends a take (press-to-start and continuous modes).</source>
        <translation>停顿多久算一段结束（“按一下开始”和“连续”模式）。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="295" />
        <source>Audio kept from just before the take starts.</source>
        <translation>保留开始听写前一小段时间的声音。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="297" />
        <source>How many of the newest takes keep their recording; the text is always kept.</source>
        <translation>最近多少段听写保留录音；文字始终保留。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="300" />
        <source>Modifiers and one key, e.g. ctrl+alt+space or ctrl+shift+d</source>
        <translation>修饰键加一个键，例如 ctrl+alt+space 或 ctrl+shift+d</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="319" />
        <source>System default</source>
        <translation>系统默认</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="321" />
        <source>{0} (not connected)</source>
        <translation>{0}（未连接）</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="329" />
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="330" />
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="456" />
        <source>Dictation starts once the speech model is ready.</source>
        <translation>语音模型就绪后即可听写。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="458" />
        <source>Listening… speak now</source>
        <translation>正在聆听…请说话</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="462" />
        <source>The recording of this take was deleted.</source>
        <translation>这段录音已被删除。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="461" />
        <source>Copied.</source>
        <translation>已复制。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="459" />
        <source>Transcribing…</source>
        <translation>正在转写…</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="460" />
        <source>Nothing was said.</source>
        <translation>没有听到说话。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="468" />
        <source>Hold {0} in any application and speak; let go and the text is inserted where your cursor is.</source>
        <translation>在任意应用中按住 {0} 说话，松开后文字会输入到光标所在位置。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="470" />
        <source>Press {0} in any application and speak; a pause ends the take and the text is inserted where your cursor is.</source>
        <translation>在任意应用中按一下 {0} 开始说话，停顿即结束，文字会输入到光标所在位置。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="472" />
        <source>Press {0} to start listening; after each pause what you said is inserted where your cursor is. Press it again to stop.</source>
        <translation>按一下 {0} 开始聆听，每次停顿后说的话会输入到光标所在位置；再按一下停止。</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="481" />
        <source>Inserted: {0}</source>
        <translation>已输入：{0}</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="489" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../dictation_panel.py" line="489" />
        <source>Dictate</source>
        <translation>开始听写</translation>
    </message>
</context>
<context>
    <name>Errors</name>
    <message>
        <location filename="../errors.py" line="83" />
        <source>file not found</source>
        <translation>文件不存在</translation>
    </message>
    <message>
        <location filename="../errors.py" line="84" />
        <source>is a folder, not a file</source>
        <translation>这是文件夹，不是文件</translation>
    </message>
    <message>
        <location filename="../errors.py" line="85" />
        <source>is not a regular file</source>
        <translation>不是普通文件</translation>
    </message>
    <message>
        <location filename="../errors.py" line="86" />
        <source>permission denied</source>
        <translation>没有读取权限</translation>
    </message>
    <message>
        <location filename="../errors.py" line="87" />
        <source>file is empty</source>
        <translation>文件是空的</translation>
    </message>
    <message>
        <location filename="../errors.py" line="88" />
        <source>not an audio or video file Tingji can read</source>
        <translation>不是听记能读取的音频或视频文件</translation>
    </message>
    <message>
        <location filename="../errors.py" line="89" />
        <source>has no audio track</source>
        <translation>没有音轨</translation>
    </message>
    <message>
        <location filename="../errors.py" line="90" />
        <source>contains no audio samples</source>
        <translation>不含任何音频数据</translation>
    </message>
    <message>
        <location filename="../errors.py" line="91" />
        <source>no model loaded</source>
        <translation>没有加载模型</translation>
    </message>
    <message>
        <location filename="../errors.py" line="92" />
        <source>decoding failed at {0} s: {1}</source>
        <translation>在 {0} 秒处解码失败：{1}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="93" />
        <source>cannot be read ({0})</source>
        <translation>无法读取（{0}）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="160" />
        <source> (the text is in the dictation history)</source>
        <translation>（文字已保存在听写历史中）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="164" />
        <source>global hotkey unavailable: {0}</source>
        <translation>全局快捷键不可用：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="166" />
        <source>no microphone found (no default input device)</source>
        <translation>找不到麦克风（没有默认输入设备）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="168" />
        <source>microphone disconnected or stopped working</source>
        <translation>麦克风已断开或停止工作</translation>
    </message>
    <message>
        <location filename="../errors.py" line="169" />
        <source>microphone {0} not found ({1})</source>
        <translation>找不到麦克风 {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../errors.py" line="170" />
        <source>cannot open microphone {0}: {1}</source>
        <translation>无法打开麦克风 {0}：{1}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="171" />
        <source>{0}: not an input device</source>
        <translation>{0}：不是输入设备</translation>
    </message>
    <message>
        <location filename="../errors.py" line="172" />
        <source>audio input unavailable: {0}</source>
        <translation>无法使用音频输入：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="174" />
        <source>cannot send keys to other applications: {0}</source>
        <translation>无法向其他应用发送按键：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="175" />
        <source>cannot use the clipboard: {0}</source>
        <translation>无法使用剪贴板：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="176" />
        <source>typing the text failed: {0}</source>
        <translation>键入文字失败：{0}</translation>
    </message>
    <message>
        <location filename="../errors.py" line="178" />
        <source>the clipboard did not respond (is the app's window busy?)</source>
        <translation>剪贴板没有响应（应用窗口是否正忙？）</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../main_window.py" line="178" />
        <source>No new audio or video files there.</source>
        <translation>那里没有新的音频或视频文件。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="181" />
        <source>Audio and video files ({0})</source>
        <translation>音频和视频文件 ({0})</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="182" />
        <location filename="../main_window.py" line="365" />
        <source>Add files</source>
        <translation>添加文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="188" />
        <location filename="../main_window.py" line="366" />
        <source>Add folder</source>
        <translation>添加文件夹</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="224" />
        <source>transcribing {0}</source>
        <translation>正在转写 {0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="227" />
        <source>dictation: listening</source>
        <translation>听写：正在聆听</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="229" />
        <source>dictation: transcribing</source>
        <translation>听写：正在转写</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="259" />
        <source>Queue finished. Done: {0} · Failed: {1}</source>
        <translation>队列已完成。完成：{0} · 失败：{1}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="260" />
        <location filename="../main_window.py" line="359" />
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="270" />
        <source>Loading model {0}…</source>
        <translation>正在加载模型 {0}…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="273" />
        <source>Ready · {0} on {1}</source>
        <translation>就绪 · {0}（{1}）</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="275" />
        <source>Model failed to load: {0}</source>
        <translation>模型加载失败：{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="277" />
        <source>No speech model installed</source>
        <translation>尚未安装语音模型</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="284" />
        <source>Settings…</source>
        <translation>设置…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="287" />
        <source>&lt;b&gt;No speech model installed.&lt;/b&gt; Run &lt;code&gt;{0}&lt;/code&gt; in a terminal, or choose a model folder in Settings. Files you add now wait until a model is ready.</source>
        <translation>&lt;b&gt;尚未安装语音模型。&lt;/b&gt;请在终端运行 &lt;code&gt;{0}&lt;/code&gt;，或在“设置”中选择一个模型文件夹。现在添加的文件会排队等待，模型就绪后开始转写。</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="289" />
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="291" />
        <source>&lt;b&gt;The speech model could not be loaded.&lt;/b&gt; {0}</source>
        <translation>&lt;b&gt;无法加载语音模型。&lt;/b&gt;{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="295" />
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="360" />
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="361" />
        <source>Transcribe audio and video files</source>
        <translation>转写音频和视频文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="362" />
        <location filename="../main_window.py" line="436" />
        <source>Dictation</source>
        <translation>听写</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="363" />
        <source>Speak into any application with a hotkey</source>
        <translation>用快捷键在任意应用中语音输入</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="365" />
        <source>Add audio or video files to the queue (Ctrl+O)</source>
        <translation>把音频或视频文件加入队列 (Ctrl+O)</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="366" />
        <source>Add every audio and video file in a folder</source>
        <translation>添加文件夹中的所有音频和视频文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="367" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="367" />
        <source>Cancel the selected files</source>
        <translation>取消所选文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="368" />
        <source>Cancel all</source>
        <translation>全部取消</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="368" />
        <source>Cancel every file that is waiting or transcribing</source>
        <translation>取消所有等待中和转写中的文件</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="369" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="369" />
        <source>Model, language, output formats, appearance</source>
        <translation>模型、语言、输出格式、外观</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="417" />
        <source>Dictation: waiting for the model</source>
        <translation>听写：等待模型</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="418" />
        <source>Dictation: press {0}</source>
        <translation>听写：按 {0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="419" />
        <source>Dictation: hotkey unavailable</source>
        <translation>听写：快捷键不可用</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="420" />
        <source>Dictation: listening…</source>
        <translation>听写：正在聆听…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="421" />
        <source>Dictation: transcribing…</source>
        <translation>听写：正在转写…</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="429" />
        <source>Open the dictation page</source>
        <translation>打开听写页面</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="434" />
        <source>Dictation: {0}</source>
        <translation>听写：{0}</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="467" />
        <source>Tingji is still running</source>
        <translation>听记仍在运行</translation>
    </message>
    <message>
        <location filename="../main_window.py" line="468" />
        <source>Dictation and the queue keep working in the background. Click the tray icon to open the window; choose Quit in its menu to exit.</source>
        <translation>听写和转写队列会在后台继续工作。点击托盘图标可打开窗口；在托盘菜单中选择“退出”即可退出。</translation>
    </message>
</context>
<context>
    <name>ModelManagerDialog</name>
    <message>
        <location filename="../model_manager.py" line="152" />
        <source>The model catalog could not be read: {0}</source>
        <translation>无法读取模型目录：{0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="174" />
        <source>Installed · in use</source>
        <translation>已安装 · 正在使用</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="174" />
        <source>Installed</source>
        <translation>已安装</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="176" />
        <source>Damaged (verify or remove it)</source>
        <translation>已损坏（请校验或移除）</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="178" />
        <source>Partially downloaded ({0}), resumable</source>
        <translation>已下载一部分（{0}），可续传</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="179" />
        <source>Not installed</source>
        <translation>未安装</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="197" />
        <source>Resume download</source>
        <translation>继续下载</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="198" />
        <location filename="../model_manager.py" line="414" />
        <source>Download</source>
        <translation>下载</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="215" />
        <source>Folder: {0}</source>
        <translation>文件夹：{0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="228" />
        <source>Choose a model folder to import</source>
        <translation>选择要导入的模型文件夹</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="231" />
        <source>Import model</source>
        <translation>导入模型</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="231" />
        <source>Install it under the name:</source>
        <translation>安装为以下名称：</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="249" />
        <source>Delete the model {0} from this computer?</source>
        <translation>要从这台电脑上删除模型 {0} 吗？</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="251" />
        <source>Tingji is using it now; another installed model will be used instead.</source>
        <translation>听记正在使用它；删除后将改用另一个已安装的模型。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="254" />
        <source>Delete the partial download of {0} ({1})? The next download starts from the beginning.</source>
        <translation>要删除 {0} 已下载的部分（{1}）吗？下次下载将从头开始。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="259" />
        <source>Remove model</source>
        <translation>移除模型</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="272" />
        <source>Tingji now uses {0}.</source>
        <translation>听记现在使用 {0}。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="282" />
        <source>Starting…</source>
        <translation>正在开始…</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="298" />
        <source>Cancelling…</source>
        <translation>正在取消…</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="302" />
        <source>Verifying files</source>
        <translation>正在校验文件</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="304" />
        <source>Extracting</source>
        <translation>正在解压</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="306" />
        <source>Copying files</source>
        <translation>正在复制文件</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="308" />
        <source>Converting</source>
        <translation>正在转换</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="310" />
        <source>Converting: {0}</source>
        <translation>正在转换：{0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="311" />
        <source>Downloading {0}</source>
        <translation>正在下载 {0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="322" />
        <source>{0} of {1}</source>
        <translation>{0} / {1}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="325" />
        <source>{0}/s</source>
        <translation>{0}/秒</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="328" />
        <source>{0} left</source>
        <translation>剩余 {0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="334" />
        <source>{0} s</source>
        <translation>{0} 秒</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="336" />
        <source>{0} min {1} s</source>
        <translation>{0} 分 {1} 秒</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="337" />
        <source>{0} h {1} min</source>
        <translation>{0} 小时 {1} 分</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="351" />
        <source>Installed {0}.</source>
        <translation>已安装 {0}。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="353" />
        <source>{0}: not checked (no published SHA-256); pinned {1} now that the model verified. Later downloads must match it.</source>
        <translation>{0}：未校验（目录没有公布 SHA-256）；模型校验通过后已固定为 {1}。以后的下载必须与之一致。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="357" />
        <source>{0}: all {1} files match their SHA-256.</source>
        <translation>{0}：全部 {1} 个文件与其 SHA-256 一致。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="362" />
        <source>Removed {0}.</source>
        <translation>已移除 {0}。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="364" />
        <source>Deleted the partial download of {0}.</source>
        <translation>已删除 {0} 已下载的部分。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="368" />
        <source>{0} failed: {1}</source>
        <translation>{0}失败：{1}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="373" />
        <source>Download of {0} cancelled; downloading it again resumes where it stopped.</source>
        <translation>已取消下载 {0}；再次下载时将从中断处继续。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="376" />
        <source>{0} cancelled.</source>
        <translation>{0}已取消。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="380" />
        <source>Download of {0}</source>
        <translation>下载 {0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="380" />
        <source>Import of {0}</source>
        <translation>导入 {0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="381" />
        <source>Verification of {0}</source>
        <translation>校验 {0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="381" />
        <source>Removal of {0}</source>
        <translation>移除 {0}</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="382" />
        <source>Deleting the partial download of {0}</source>
        <translation>删除 {0} 已下载的部分</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="410" />
        <source>Speech models</source>
        <translation>语音模型</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="411" />
        <source>Models Tingji can use. Downloads resume where they stopped; a file is checked against its SHA-256 where one is published or pinned (see the Hashes column), and every model is verified before it is installed.</source>
        <translation>Tingji 可用的模型。下载会从中断处继续；公布了或已固定 SHA-256 的文件会据此校验（见“哈希”列），每个模型在安装前都会经过校验。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="413" />
        <source>Model</source>
        <translation>模型</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="413" />
        <source>Size</source>
        <translation>大小</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="413" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="414" />
        <source>Import folder…</source>
        <translation>导入文件夹…</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="415" />
        <source>Verify</source>
        <translation>校验</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="415" />
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="415" />
        <source>Use this model</source>
        <translation>使用此模型</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="416" />
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="419" />
        <source>Check every file of the model against its SHA-256</source>
        <translation>用 SHA-256 校验模型的每个文件</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="420" />
        <source>Install a copy of a Tingji model folder, or of a Fun-ASR-Nano GGUF release folder (CapsWriter-Offline)</source>
        <translation>安装听记模型文件夹的副本，或 Fun-ASR-Nano GGUF 发布文件夹（CapsWriter-Offline）的副本</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="422" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Forget the {0} SHA-256 hashes pinned by the first download of {1}? The next download cannot be checked against them; it pins new ones once the model verifies.</source>
        <translation>要忘记 {1} 首次下载时固定的 {0} 个 SHA-256 哈希吗？下次下载将无法用它们校验；模型校验通过后会固定新的哈希。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Forget pinned hashes</source>
        <translation>忘记固定的哈希</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Forgot {0} pinned SHA-256 hashes of {1}; its next download pins new ones.</source>
        <translation>已忘记 {1} 的 {0} 个固定 SHA-256 哈希；下次下载时会固定新的哈希。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Forgetting the pinned hashes of {0}</source>
        <translation>忘记 {0} 的固定哈希</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Forget the SHA-256 hashes pinned by this model's first download (after a legitimate update of the model)</source>
        <translation>忘记此模型首次下载时固定的 SHA-256 哈希（在模型正当更新之后使用）</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>None published</source>
        <translation>未公布</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Pinned by you</source>
        <translation>由你固定</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Published</source>
        <translation>已公布</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>The catalog publishes no SHA-256 for {0} of its {1} files: downloading this model cannot check them. Their hashes are pinned once the model verifies, and later downloads must match.</source>
        <translation>目录没有公布其 {1} 个文件中 {0} 个的 SHA-256：下载此模型时无法校验这些文件。模型校验通过后会固定它们的哈希，以后的下载必须与之一致。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Downloads are checked against SHA-256 hashes pinned by your first download, not published by the catalog.</source>
        <translation>下载会用你首次下载时固定的 SHA-256 哈希校验，而不是目录公布的哈希。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Downloads are checked against the SHA-256 hashes the catalog publishes.</source>
        <translation>下载会用目录公布的 SHA-256 哈希校验。</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Hashes</source>
        <translation>哈希</translation>
    </message>
    <message>
        <location filename="../model_manager.py" line="0" />
        <source>Loading the model to check it</source>
        <translation>正在加载模型以检查其能否使用</translation>
    </message>
</context>
<context>
    <name>QueueModel</name>
    <message>
        <location filename="../queue_model.py" line="156" />
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="156" />
        <source>Duration</source>
        <translation>时长</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="156" />
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="156" />
        <source>Progress</source>
        <translation>进度</translation>
    </message>
</context>
<context>
    <name>QueuePanel</name>
    <message>
        <location filename="../queue_view.py" line="175" />
        <source>Files: {0} · Done: {1}</source>
        <translation>文件：{0} · 完成：{1}</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="177" />
        <source>Failed: {0}</source>
        <translation>失败：{0}</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="196" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="198" />
        <source>Transcribe again</source>
        <translation>重新转写</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="200" />
        <source>Move up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="202" />
        <source>Move down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="205" />
        <source>Open containing folder</source>
        <translation>打开所在文件夹</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="208" />
        <source>Remove from list</source>
        <translation>从列表中移除</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="214" />
        <source>Up</source>
        <translation>上移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="215" />
        <source>Move the selected file up the queue</source>
        <translation>把所选文件在队列中上移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="216" />
        <source>Down</source>
        <translation>下移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="217" />
        <source>Move the selected file down the queue</source>
        <translation>把所选文件在队列中下移</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="218" />
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="219" />
        <source>Remove the selected files from the list (Del)</source>
        <translation>从列表中移除所选文件 (Del)</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="220" />
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="221" />
        <source>Transcribe the selected files again</source>
        <translation>重新转写所选文件</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="222" />
        <source>Drop audio or video files here</source>
        <translation>把音频或视频文件拖到这里</translation>
    </message>
    <message>
        <location filename="../queue_view.py" line="223" />
        <source>or folders, or use Add files / Add folder above</source>
        <translation>也可以拖入文件夹，或使用上方的“添加文件”/“添加文件夹”</translation>
    </message>
</context>
<context>
    <name>ScanStatus</name>
    <message>
        <location filename="../scan_status.py" line="49" />
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../scan_status.py" line="50" />
        <source>Stop looking; nothing from this folder is added</source>
        <translation>停止查找；不添加这个文件夹中的任何文件</translation>
    </message>
    <message>
        <location filename="../scan_status.py" line="66" />
        <source>Looking for audio and video files… {0} found</source>
        <translation>正在查找音频和视频文件… 已找到 {0} 个</translation>
    </message>
</context>
<context>
    <name>SegmentModel</name>
    <message>
        <location filename="../transcript_view.py" line="68" />
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="68" />
        <source>Text</source>
        <translation>文本</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../settings_dialog.py" line="32" />
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="40" />
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="41" />
        <source>Use a Tingji model folder anywhere on this computer</source>
        <translation>使用本机任意位置的听记模型文件夹</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="43" />
        <source>Manage models…</source>
        <translation>管理模型…</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="50" />
        <source>Automatic (GPU when available)</source>
        <translation>自动（有 GPU 时使用 GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="51" />
        <source>DirectML (Windows GPU)</source>
        <translation>DirectML（Windows GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="52" />
        <source>CUDA (NVIDIA GPU)</source>
        <translation>CUDA（NVIDIA GPU）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="52" />
        <source>CPU only</source>
        <translation>仅 CPU</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="55" />
        <source>Detect automatically</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="55" />
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="56" />
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="56" />
        <source>Japanese</source>
        <translation>日文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="57" />
        <source>Cantonese</source>
        <translation>粤语</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="57" />
        <source>Korean</source>
        <translation>韩文</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="60" />
        <source>Names and terms to favour, one per line</source>
        <translation>需要优先识别的人名和术语，每行一个</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="64" />
        <source>Speech recognition</source>
        <translation>语音识别</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="66" />
        <source>Model:</source>
        <translation>模型：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="67" />
        <source>Run on:</source>
        <translation>运行设备：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="68" />
        <source>Language spoken:</source>
        <translation>说话语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="69" />
        <source>Hotwords:</source>
        <translation>热词：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="72" />
        <source>Save transcripts next to each source file when done</source>
        <translation>完成后自动把转写结果保存在源文件旁边</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="78" />
        <source>Output</source>
        <translation>输出</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="81" />
        <source>Formats:</source>
        <translation>格式：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="85" />
        <source>System default</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="88" />
        <source>Follow the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="88" />
        <source>Light</source>
        <translation>浅色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="89" />
        <source>Dark</source>
        <translation>深色</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="91" />
        <source>Interface</source>
        <translation>界面</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="93" />
        <source>Language:</source>
        <translation>语言：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="94" />
        <source>Appearance:</source>
        <translation>外观：</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="95" />
        <source>Language and appearance change at once.</source>
        <translation>语言和外观会立即生效。</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="122" />
        <source>Automatic (first installed model)</source>
        <translation>自动（第一个已安装的模型）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="125" />
        <source>{0} (incomplete)</source>
        <translation>{0}（不完整）</translation>
    </message>
    <message>
        <location filename="../settings_dialog.py" line="158" />
        <source>Choose a Tingji model folder</source>
        <translation>选择听记模型文件夹</translation>
    </message>
</context>
<context>
    <name>Status</name>
    <message>
        <location filename="../queue_model.py" line="42" />
        <source>Waiting</source>
        <translation>等待中</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="43" />
        <source>Transcribing</source>
        <translation>转写中</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="44" />
        <source>Done</source>
        <translation>完成</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="45" />
        <source>Failed</source>
        <translation>失败</translation>
    </message>
    <message>
        <location filename="../queue_model.py" line="46" />
        <source>Cancelled</source>
        <translation>已取消</translation>
    </message>
</context>
<context>
    <name>TranscriptPanel</name>
    <message>
        <location filename="../transcript_view.py" line="173" />
        <source>Cannot play this file: {0}</source>
        <translation>无法播放此文件：{0}</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="207" />
        <source>Transcript</source>
        <translation>转写结果</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="216" />
        <source>Select a file in the queue to see its transcript.</source>
        <translation>在队列中选择一个文件，即可查看转写结果。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="218" />
        <source>Waiting to be transcribed.</source>
        <translation>等待转写。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="220" />
        <source>Transcribing…
Text appears here as it is recognised.</source>
        <translation>正在转写…
识别出的文字会陆续显示在这里。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="222" />
        <source>This file could not be transcribed:
{0}</source>
        <translation>无法转写此文件：
{0}</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="225" />
        <source>Cancelled before any text was recognised.</source>
        <translation>在识别出任何文字之前已取消。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="227" />
        <source>No speech was found in this file.</source>
        <translation>此文件中没有发现语音。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="243" />
        <source>transcribed in {0:.1f} s</source>
        <translation>用时 {0:.1f} 秒</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="245" />
        <source>cancelled: partial transcript</source>
        <translation>已取消：部分结果</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="249" />
        <source>Copy all</source>
        <translation>全部复制</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="250" />
        <source>Copy the whole transcript to the clipboard</source>
        <translation>把全部转写结果复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="251" />
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="252" />
        <source>Save the transcript as TXT, SRT, VTT or JSON</source>
        <translation>把转写结果保存为 TXT、SRT、VTT 或 JSON</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="253" />
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="273" />
        <source>Transcript copied to the clipboard.</source>
        <translation>转写结果已复制到剪贴板。</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="288" />
        <source>Plain text (*.txt)</source>
        <translation>纯文本 (*.txt)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="288" />
        <source>SubRip subtitles (*.srt)</source>
        <translation>SubRip 字幕 (*.srt)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="289" />
        <source>WebVTT subtitles (*.vtt)</source>
        <translation>WebVTT 字幕 (*.vtt)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="289" />
        <source>JSON with timings (*.json)</source>
        <translation>带时间信息的 JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="290" />
        <source>Export transcript</source>
        <translation>导出转写结果</translation>
    </message>
    <message>
        <location filename="../transcript_view.py" line="301" />
        <source>Saved {0}</source>
        <translation>已保存 {0}</translation>
    </message>
</context>
<context>
    <name>Tray</name>
    <message>
        <location filename="../tray.py" line="42" />
        <source>Show Tingji</source>
        <translation>显示听记</translation>
    </message>
    <message>
        <location filename="../tray.py" line="43" />
        <source>Quit</source>
        <translation>退出</translation>
    </message>
    <message>
        <location filename="../tray.py" line="44" />
        <location filename="../tray.py" line="47" />
        <source>Tingji</source>
        <translation>听记 Tingji</translation>
    </message>
</context>
</TS>